import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { eventually } from './eventually.ts';
import { freePort } from './worker-process.ts';

const POSTFIX = '/usr/sbin/postfix';
const POSTGREY = '/usr/sbin/postgrey';

export interface PostfixListener {
  /** 127.0.0.0/8 address of one smtpd (an MX host's A record); every listener shares the instance's port. */
  ip: string;
  /**
   * Whether postgrey is asked before unknown recipients are refused, as in postgrey's README
   * (`reject_unauth_destination, check_policy_service ...`, where Postfix's implicit unlisted-recipient check
   * comes after the deferral): unknown addresses are then greylisted too and get their 550 only once passed.
   * Otherwise `reject_unlisted_recipient` comes first and they get 550 5.1.1 at once.
   */
  greylistUnknown: boolean;
}

export interface PostfixOptions {
  listeners: readonly PostfixListener[];
  /** Virtual mailbox domains; their unknown recipients get 550 5.1.1 at RCPT. */
  domains: readonly string[];
  mailboxes: readonly string[];
  /** postgrey's `--delay`, in seconds. */
  greylistDelaySeconds: number;
}

export interface RunningPostfix {
  /** The port of every listener (the prober's SMTP_PROBE_PORT). */
  port: number;
  /** Postfix's own log (`maillog_file`): connects, rejects with their replies, disconnects with command counts. */
  log(): Promise<string>;
  /** What postgrey printed: one `action=greylist|pass` line per policy query. */
  postgreyLog(): string;
  stop(): Promise<void>;
}

/**
 * Why a real MTA cannot run here, or null. Not a skip: tests fail with this message (`.ci/run` installs both).
 */
function postfixUnavailable(): string | null {
  const missing = [POSTFIX, POSTGREY].filter((binary) => !existsSync(binary));
  if (missing.length > 0)
    return `${missing.join(' and ')} missing: apt-get install postfix postgrey (.ci/run does it when missing)`;
  // The master daemon binds as root and drops to the postfix user for smtpd, as on a real MX.
  if (userInfo().uid !== 0) return 'a private Postfix instance needs root (its master daemon runs as root)';
  return null;
}

/** The parts of master.cf an SMTP server answering RCPT needs, nothing chrooted (the queue is a temp dir). */
function masterCf(listeners: readonly PostfixListener[], port: number, postgreyPort: number): string {
  const policy = `check_policy_service,inet:127.0.0.1:${postgreyPort}`;
  const restrictions = (l: PostfixListener) =>
    l.greylistUnknown
      ? `reject_unauth_destination,${policy}`
      : `reject_unauth_destination,reject_unlisted_recipient,${policy}`;
  return [
    ...listeners.map(
      (l) => `${l.ip}:${port} inet n - n - - smtpd -o smtpd_recipient_restrictions=${restrictions(l)}`,
    ),
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'proxymap unix - - n - - proxymap',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'postlog unix-dgram n - n - 1 postlogd',
    '',
  ].join('\n');
}

/** A receiving MX for one virtual domain, greylisting through postgrey as its README sets it up. */
function mainCf(dir: string, options: PostfixOptions): string {
  const [first] = options.domains;
  return [
    'compatibility_level = 3.6',
    `queue_directory = ${dir}/queue`,
    `data_directory = ${dir}/data`,
    `maillog_file_prefixes = ${dir}`,
    `maillog_file = ${dir}/postfix.log`,
    'mail_owner = postfix',
    'setgid_group = postdrop',
    `myhostname = mx.${first}`,
    `mydomain = ${first}`,
    `myorigin = ${first}`,
    'mydestination =',
    // Listening addresses come from master.cf; `all` spares Postfix's check that each is an interface's own.
    'inet_interfaces = all',
    'inet_protocols = ipv4',
    'alias_maps =',
    'alias_database =',
    'local_recipient_maps =',
    'relayhost =',
    'mynetworks =',
    `virtual_mailbox_domains = ${options.domains.join(', ')}`,
    `virtual_mailbox_maps = texthash:${dir}/etc/vmailbox`,
    'virtual_transport = discard',
    // smtpd_recipient_restrictions: per listener, in master.cf.
    'biff = no',
    '',
  ].join('\n');
}

/** Whether something on ip:port sends a line starting with a reply code. */
function greets(ip: string, port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host: ip, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(/^\d{3}[ -]/.test(data.toString('latin1'))));
  });
}

async function waitForBanner(ip: string, port: number, timeoutMs: number): Promise<void> {
  await eventually(() => greets(ip, port), (greeted) => greeted, { what: `a banner on ${ip}:${port}`, timeoutMs, intervalMs: 100 });
}

async function waitForListener(
  ip: string,
  port: number,
  timeoutMs: number,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host: ip, port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  const exited = () => child.exitCode !== null;
  const open = await eventually(async () => !exited() && (await accepts()), (up) => up || exited(), {
    what: `postgrey on ${ip}:${port}`,
    timeoutMs,
    intervalMs: 100,
  }).catch(() => false);
  if (!open) throw new Error(`postgrey does not listen on ${ip}:${port}: ${output()}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * A private Postfix (`postfix -c DIR start-fg`, its own config and queue under a temp dir) on ip and a free
 * port, with postgrey (`--delay`) as its policy service on another free port. Nothing of the system's mail
 * setup is read or changed. `stop()` ends both and removes the directory.
 */
export async function startPostfix(options: PostfixOptions): Promise<RunningPostfix> {
  const unavailable = postfixUnavailable();
  if (unavailable) throw new Error(unavailable);
  const dir = await mkdtemp(path.join(tmpdir(), 'postfix-'));
  const children: ChildProcess[] = [];
  let postgreyOutput = '';
  let postfixOutput = '';
  const postfix = (...args: string[]) => promisify(execFile)(POSTFIX, ['-c', `${dir}/etc`, ...args]);

  const stop = async () => {
    await postfix('stop').catch(() => undefined);
    for (const child of children) {
      child.kill('SIGTERM');
      const killed = await Promise.race([exited(child).then(() => true), sleep(5_000).then(() => false)]);
      if (!killed) child.kill('SIGKILL');
    }
    await Promise.all(children.map(exited));
    await rm(dir, { recursive: true, force: true });
  };

  try {
    // The daemons run as the postfix and postgrey users: the path to their directories must be open to them.
    await chmod(dir, 0o755);
    for (const sub of ['etc', 'queue', 'data', 'postgrey']) await mkdir(path.join(dir, sub));
    const { uid: postfixUid } = await idOf('postfix');
    const postgreyUser = await idOf('postgrey');
    await chown(path.join(dir, 'data'), postfixUid, -1);
    await chown(path.join(dir, 'postgrey'), postgreyUser.uid, postgreyUser.gid);

    await writeFile(path.join(dir, 'etc/whitelist_clients'), '');
    await writeFile(path.join(dir, 'etc/whitelist_recipients'), '');
    const postgreyPort = await freePort();
    const postgrey = spawn(
      POSTGREY,
      [
        `--inet=127.0.0.1:${postgreyPort}`,
        `--delay=${options.greylistDelaySeconds}`,
        `--dbdir=${dir}/postgrey`,
        '--user=postgrey',
        '--group=postgrey',
        // No client is whitelisted after its first few passes: each address meets the greylisting itself.
        '--auto-whitelist-clients=0',
        // Empty whitelists: what is greylisted does not depend on the machine's /etc/postgrey.
        `--whitelist-clients=${dir}/etc/whitelist_clients`,
        `--whitelist-recipients=${dir}/etc/whitelist_recipients`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(postgrey);
    postgrey.stdout.on('data', (chunk: Buffer) => (postgreyOutput += chunk.toString()));
    postgrey.stderr.on('data', (chunk: Buffer) => (postgreyOutput += chunk.toString()));
    await waitForListener('127.0.0.1', postgreyPort, 15_000, postgrey, () => postgreyOutput);

    const port = await freePort();
    await writeFile(path.join(dir, 'etc/main.cf'), mainCf(dir, options));
    await writeFile(path.join(dir, 'etc/master.cf'), masterCf(options.listeners, port, postgreyPort));
    await writeFile(path.join(dir, 'etc/vmailbox'), options.mailboxes.map((m) => `${m} ok\n`).join(''));
    // `check` creates the queue's subdirectories with the owners Postfix wants.
    await postfix('check').catch(async (error: unknown) => {
      // Postfix commands log to maillog_file (or syslog), not to a stderr that is no terminal.
      const log = await readFile(path.join(dir, 'postfix.log'), 'utf8').catch(() => '');
      throw new Error(`postfix check failed for ${dir}/etc: ${String(error)}\n${log}`);
    });
    const master = spawn(POSTFIX, ['-c', `${dir}/etc`, 'start-fg'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(master);
    master.stdout.on('data', (chunk: Buffer) => (postfixOutput += chunk.toString()));
    master.stderr.on('data', (chunk: Buffer) => (postfixOutput += chunk.toString()));
    for (const { ip } of options.listeners)
      await waitForBanner(ip, port, 20_000).catch(async (error: unknown) => {
        const log = await readFile(path.join(dir, 'postfix.log'), 'utf8').catch(() => '');
        throw new Error(`${String(error)}\n${postfixOutput}\n${log}`);
      });

    return {
      port,
      log: () => readFile(path.join(dir, 'postfix.log'), 'utf8'),
      postgreyLog: () => postgreyOutput,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function idOf(user: string): Promise<{ uid: number; gid: number }> {
  const run = promisify(execFile);
  const [uid, gid] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
