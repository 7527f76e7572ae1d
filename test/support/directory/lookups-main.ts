// One worker process as far as the directory's pace can tell: its own pool and MicrosoftDirectory on the shared
// database. Says `ready` once loaded, connected and warm (one lookup of WARM_UP: a long-running worker's code and
// connections are, and a cold process's first request leaves late), waits for `go` on stdin (so sibling processes start together,
// none of them still loading while the others send), looks every address of ADDRESSES (comma list) up at once,
// and prints the answers as one JSON line.
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { MicrosoftDirectory } from '../../../src/directory/microsoft.ts';

const env = process.env;
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 4 });
const directory = new MicrosoftDirectory({ baseUrl: env.MS_LOGIN_BASE_URL!, pool, ratePerSecond: Number(env.MS_DIRECTORY_RATE) });
await directory.lookup(env.WARM_UP!);
const lines = createInterface({ input: process.stdin });
console.log('ready');
await once(lines, 'line');
lines.close();
const addresses = env.ADDRESSES!.split(',');
const answers = await Promise.all(addresses.map((email) => directory.lookup(email)));
console.log(JSON.stringify(Object.fromEntries(addresses.map((email, i) => [email, answers[i]!.kind]))));
await pool.end();
