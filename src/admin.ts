import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from './config.ts';
import { Organization } from './db/entities/index.ts';
import { initOrm } from './db/orm.ts';
import { applyCredits, InsufficientCreditsError } from './accounts/credits.ts';

const USAGE = `usage: npm run admin -- grant-credits --org <organization id> --credits <n> --reason <text> [--idempotency-key <key>]
  --credits=-<n> takes credits back (never below a zero balance).
  --idempotency-key makes a repeated command a no-op (default: a new key per run).`;

const GrantArgs = z.object({
  org: z.uuid({ message: '--org must be an organization id (UUID)' }),
  credits: z.coerce.number().int().refine((n) => n !== 0, '--credits must be a non-zero integer'),
  reason: z.string().trim().min(1, '--reason is required').max(300),
  'idempotency-key': z.string().min(1).max(200).optional(),
});

async function grantCredits(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: { org: { type: 'string' }, credits: { type: 'string' }, reason: { type: 'string' }, 'idempotency-key': { type: 'string' } },
  });
  const parsed = GrantArgs.safeParse(values);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join('\n'));
  const args = parsed.data;
  const config = loadConfig();
  if (!config.DATABASE_URL) throw new UsageError('DATABASE_URL is not set');
  const orm = await initOrm(config.DATABASE_URL);
  try {
    const em = orm.em.fork();
    if (!(await em.count(Organization, { id: args.org }))) throw new UsageError(`organization ${args.org} does not exist`);
    const key = `admin:${args['idempotency-key'] ?? randomUUID()}`;
    const result = await applyCredits(em, {
      organizationId: args.org,
      delta: args.credits,
      reason: args.reason,
      refType: 'admin',
      refId: key,
      idempotencyKey: key,
    });
    console.log(
      result.applied
        ? `granted ${args.credits} credits to ${args.org}; balance ${result.balance}`
        : `already applied (${key}); balance ${result.balance}`,
    );
  } finally {
    await orm.close();
  }
}

class UsageError extends Error {}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'grant-credits') await grantCredits(rest);
  else throw new UsageError(command ? `unknown command ${command}` : 'no command');
} catch (err) {
  if (err instanceof UsageError || err instanceof InsufficientCreditsError) {
    console.error(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
  if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
    console.error(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
  throw err;
}
