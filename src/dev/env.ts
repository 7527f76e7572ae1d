import { z } from 'zod';

// An empty assignment (`DATABASE_URL=` in .env) means "not configured", like an absent one.
const optionalText = z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());
const port = (fallback: number) => z.coerce.number().int().min(1).max(65_535).default(fallback);

/** What `npm run dev` reads; the application itself parses the full configuration (src/config.ts). */
const DevEnv = z.object({
  DATABASE_URL: optionalText,
  TEMPORAL_ADDRESS: optionalText,
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  PORT: port(3000),
  DEV_PG_PORT: port(5433),
  DEV_TEMPORAL_PORT: port(7233),
  DEV_TEMPORAL_UI_PORT: port(8233),
});

export type DevEnv = z.infer<typeof DevEnv>;

export class DevEnvError extends Error {
  constructor(issues: string) {
    super(`Invalid environment for npm run dev:\n${issues}`);
    this.name = 'DevEnvError';
  }
}

export function loadDevEnv(env: NodeJS.ProcessEnv = process.env): DevEnv {
  const parsed = DevEnv.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new DevEnvError(
    parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n'),
  );
}
