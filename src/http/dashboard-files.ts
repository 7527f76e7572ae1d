import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The dashboard's sources (Preact, built by scripts/build-dashboard.ts) and where the build lands. */
export const WEB_DIR = path.join(ROOT, 'web');
export const DASHBOARD_DIR = path.join(ROOT, 'dist', 'dashboard');
