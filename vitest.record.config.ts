import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run histories:record`: the recorder is not part of the test run, only of this one.
export default defineConfig({ test: { ...base.test, include: ['test/replay/record-histories.ts'] } });
