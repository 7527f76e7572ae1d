import { createServer as createNetServer } from 'node:net';
import { domainToASCII } from 'node:url';
import type { Server, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerSession } from 'smtp-server';
import type { HostBehaviour, HostStats, MailHost, SessionRecord } from './types.ts';

/** Counts sessions open at once: per host, and (shared) across the whole world. */
export class SessionGauge {
  active = 0;
  max = 0;

  open(): void {
    this.active += 1;
    this.max = Math.max(this.max, this.active);
  }

  close(): void {
    this.active -= 1;
  }

  /** Forgets the peak: from now on `max` is measured afresh. */
  resetPeak(): void {
    this.max = this.active;
  }
}

export interface RunningHost extends MailHost {
  stop(): Promise<void>;
}

/** An error whose `responseCode` smtp-server sends; the enhanced code travels at the start of the text. */
function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/** A reply of `HostBehaviour.refuseFrom` for this client at this stage, if it gets one. */
function refusal(behaviour: HostBehaviour, stage: 'connect' | 'MAIL' | 'RCPT', client: string): Error | null {
  const refuse = behaviour.refuseFrom;
  if (!refuse || refuse.stage !== stage || !refuse.sources.includes(client)) return null;
  const [first = '554 refused'] = refuse.reply;
  // smtp-server sends one line: the enhanced code once, at the start, then every line's text.
  const text = refuse.reply.map((line, i) => (i === 0 ? line.slice(4) : line.slice(4).replace(/^\d\.\d{1,3}\.\d{1,3} /, ''))).join(' ');
  return smtpError(Number(first.slice(0, 3)), text);
}

/** smtp-server hands over IDN domains decoded to Unicode; the world keeps every address in ASCII. */
function asciiAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  return `${address.slice(0, at + 1)}${domainToASCII(domain) || domain}`.toLowerCase();
}

function emptyStats(): HostStats {
  return {
    sessions: 0,
    activeSessions: 0,
    maxConcurrentSessions: 0,
    maxConcurrentBySource: {},
    rcpts: [],
    dataCommands: 0,
    commandsByVerb: {},
    tlsSessions: 0,
    log: [],
  };
}

/** Now, in ms since the epoch to the microsecond (a session's phases are a few ms apart). */
const epochMs = () => performance.timeOrigin + performance.now();

/**
 * Bookkeeping shared by both kinds of host: every accepted socket becomes a session record; the
 * client's command lines are read off the wire (plain text, then the TLS socket after STARTTLS),
 * so DATA is noticed even if the server would refuse it. A session counts as open (host and world
 * gauges) until QUIT or the connection closes, whichever comes first; per client address, as a
 * provider limits a sending IP, a connection counts until the client closes it (CONTRACT §11).
 */
class SessionBook {
  readonly stats = emptyStats();
  readonly #hostGauge = new SessionGauge();
  readonly #worldGauge: SessionGauge;
  readonly #byRemote = new Map<string, { record: SessionRecord; socket: Socket; finish: () => void; disconnected: () => void }>();
  readonly #bySource = new Map<string, SessionGauge>();
  /** RCPT lines read and not answered yet, per session. */
  readonly #unanswered = new WeakMap<SessionRecord, number>();
  readonly sockets = new Set<Socket>();

  constructor(worldGauge: SessionGauge) {
    this.#worldGauge = worldGauge;
  }

  accept(socket: Socket): SessionRecord {
    const remote = `${socket.remoteAddress}:${socket.remotePort}`;
    const record: SessionRecord = { remote, commands: [], rcpts: [], tls: false, ended: false, acceptedAt: epochMs() };
    const source = socket.remoteAddress ?? '';
    const gauge = this.#bySource.get(source) ?? new SessionGauge();
    this.#bySource.set(source, gauge);
    // A provider counts a sending address's connection until it is closed (the client's FIN or a reset), QUIT or not.
    let connected = true;
    const disconnected = (): void => {
      if (!connected) return;
      connected = false;
      gauge.close();
    };
    const finish = (): void => {
      record.closedAt = epochMs();
      this.sockets.delete(socket);
      this.#byRemote.delete(remote);
      this.end(record);
      disconnected();
    };
    this.sockets.add(socket);
    this.#byRemote.set(remote, { record, socket, finish, disconnected });
    this.stats.sessions += 1;
    this.stats.log.push(record);
    this.#hostGauge.open();
    this.#worldGauge.open();
    gauge.open();
    // Judged after the rest of this event-loop turn: a client's FIN that reached the kernel before this connect
    // may be read just after the accept in the same batch of events, and that connection had ended first.
    setImmediate(() => {
      this.stats.maxConcurrentBySource[source] = Math.max(this.stats.maxConcurrentBySource[source] ?? 0, gauge.active);
    });
    this.#sync();
    socket.on('error', () => undefined);
    socket.once('end', disconnected);
    socket.once('close', finish);
    this.sniff(socket, record);
    return record;
  }

  /**
   * Follows the session onto its TLS socket. smtp-server strips every listener from the raw socket
   * when it upgrades, so the end of the session must now be watched on the TLS socket.
   */
  secured(tlsSocket: Socket, session: SMTPServerSession): void {
    const entry = this.#byRemote.get(`${session.remoteAddress}:${session.remotePort}`);
    if (!entry) return;
    entry.record.tls = true;
    entry.record.tlsResumed = (tlsSocket as TLSSocket).isSessionReused();
    this.stats.tlsSessions += 1;
    tlsSocket.on('error', () => undefined);
    tlsSocket.once('end', entry.disconnected);
    tlsSocket.once('close', entry.finish);
    this.sniff(tlsSocket, entry.record);
  }

  /** A RCPT of the session is answered (its reply goes out now). */
  rcptAnswered(record: SessionRecord | undefined): void {
    if (record) this.#unanswered.set(record, (this.#unanswered.get(record) ?? 1) - 1);
  }

  recordOf(session: SMTPServerSession): SessionRecord | undefined {
    return this.#byRemote.get(`${session.remoteAddress}:${session.remotePort}`)?.record;
  }

  /** Cuts the session's TCP connection without a word. */
  hangUp(session: SMTPServerSession): void {
    this.#byRemote.get(`${session.remoteAddress}:${session.remotePort}`)?.socket.destroy();
  }

  end(record: SessionRecord): void {
    if (record.ended) return;
    record.ended = true;
    this.#hostGauge.close();
    this.#worldGauge.close();
    this.#sync();
  }

  /** Reads command lines off `socket` until STARTTLS (after which the bytes are TLS records). */
  sniff(socket: Socket, record: SessionRecord): void {
    let pending = '';
    const onData = (chunk: Buffer | string): void => {
      pending += chunk.toString('latin1');
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline).replace(/\r$/, '');
        pending = pending.slice(newline + 1);
        record.commands.push(line);
        const verb = line.split(' ', 1)[0]!.toUpperCase();
        this.stats.commandsByVerb[verb] = (this.stats.commandsByVerb[verb] ?? 0) + 1;
        if (verb === 'DATA' || verb === 'BDAT') this.stats.dataCommands += 1;
        if (verb === 'MAIL') record.firstMailAt ??= epochMs();
        if (verb === 'RCPT') this.#unanswered.set(record, (this.#unanswered.get(record) ?? 0) + 1);
        if (verb === 'QUIT') {
          record.rcptsUnansweredAtQuit = this.#unanswered.get(record) ?? 0;
          this.end(record);
        }
        if (verb === 'STARTTLS') {
          socket.removeListener('data', onData);
          return;
        }
      }
    };
    socket.on('data', onData);
  }

  #sync(): void {
    this.stats.activeSessions = this.#hostGauge.active;
    this.stats.maxConcurrentSessions = this.#hostGauge.max;
  }

  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}

function listen(server: Server, ip: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, ip, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A host that accepts TCP and then says nothing at all. */
async function startSilentHost(
  name: string,
  ip: string,
  port: number,
  behaviour: HostBehaviour,
  gauge: SessionGauge,
): Promise<RunningHost> {
  const book = new SessionBook(gauge);
  const server = createNetServer((socket) => book.accept(socket));
  await listen(server, ip, port);
  return {
    name,
    ip,
    behaviour,
    stats: book.stats,
    stop: async () => {
      book.destroyAll();
      await closeServer(server);
    },
  };
}

/** The RCPT answer of a well-behaved host, by its behaviour. */
function rcptDecision(
  behaviour: HostBehaviour,
  address: string,
  seen: Set<string>,
  mailboxes: Set<string>,
  remoteIp: string,
  triplets: { firstSeen: Map<string, number>; sender: string },
): Error | null {
  if (behaviour.policyBlock) {
    return smtpError(
      550,
      `5.7.1 Service unavailable; client [${remoteIp}] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/${remoteIp}`,
    );
  }
  if (behaviour.deferAlways) return smtpError(451, '4.3.0 Temporary local problem, please try again later');
  const domain = address.slice(address.lastIndexOf('@') + 1);
  if (behaviour.relayDomains && !behaviour.relayDomains.includes(domain))
    return smtpError(554, `5.7.1 <${address}>: Relay access denied`);
  if (behaviour.catchAllDomains?.includes(domain)) return null;
  if (behaviour.greylistForMs !== undefined) {
    const key = `${remoteIp} ${triplets.sender} ${address}`;
    const first = triplets.firstSeen.get(key) ?? Date.now();
    triplets.firstSeen.set(key, first);
    if (Date.now() - first < behaviour.greylistForMs)
      return smtpError(451, '4.7.1 Greylisted, see http://postgrey.schweikert.ch/help/example.html');
  }
  if (behaviour.greylist && !seen.has(address)) {
    seen.add(address);
    return smtpError(451, '4.7.1 Greylisted, please try again later');
  }
  if (behaviour.catchAll || mailboxes.has(address)) return null;
  return smtpError(
    550,
    `5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`,
  );
}

async function startSmtpHost(
  name: string,
  ip: string,
  port: number,
  behaviour: HostBehaviour,
  gauge: SessionGauge,
): Promise<RunningHost> {
  const book = new SessionBook(gauge);
  const mailboxes = new Set((behaviour.mailboxes ?? []).map(asciiAddress));
  const greylistSeen = new Set<string>();
  const tripletSeen = new Map<string, number>();
  const latency = behaviour.latencyMs ?? 0;
  const later = (reply: () => void): void => {
    if (latency > 0) setTimeout(reply, latency);
    else reply();
  };
  // MAIL+RCPT commands per session, for `closeAfterCommands`, RCPTs, for `maxRcptPerSession`, and
  // rejected RCPTs, for `tarpit`.
  type Counters = { commands: number; rcpts: number; errors: number };
  const counters = new WeakMap<SessionRecord, Counters>();
  const countersOf = (record: SessionRecord | undefined): Counters => {
    if (!record) return { commands: 0, rcpts: 0, errors: 0 };
    let value = counters.get(record);
    if (!value) {
      value = { commands: 0, rcpts: 0, errors: 0 };
      counters.set(record, value);
    }
    return value;
  };
  const closing = (count: number): Error | null =>
    behaviour.closeAfterCommands !== undefined && count > behaviour.closeAfterCommands
      ? smtpError(421, '4.3.2 Too many commands in this session, closing connection')
      : null;
  /** True when the connection was cut instead of answering. */
  const hungUp = (session: SMTPServerSession, count: number): boolean => {
    if (behaviour.hangUpAfterCommands === undefined || count <= behaviour.hangUpAfterCommands) return false;
    book.hangUp(session);
    return true;
  };

  const disabledCommands = ['AUTH'];
  if (behaviour.starttls === false) disabledCommands.push('STARTTLS');
  if (behaviour.heloOnly) disabledCommands.push('EHLO');

  const smtp = new SMTPServer({
    name,
    ...(behaviour.banner === undefined ? {} : { banner: behaviour.banner }),
    logger: false,
    hidePIPELINING: behaviour.pipelining === false,
    disabledCommands,
    authOptional: true,
    disableReverseLookup: true,
    closeTimeout: 50,
    onConnect(session, callback) {
      if (behaviour.dropFrom?.includes(session.remoteAddress)) return;
      later(() =>
        callback(
          refusal(behaviour, 'connect', session.remoteAddress) ??
            (behaviour.refuseGreeting ? smtpError(421, '4.3.2 Too busy, try another MX') : null),
        ),
      );
    },
    onSecure(socket, session, callback) {
      // The callback pipes the socket into smtp-server's parser synchronously, before any data can
      // flow, so the sniffer attached right after it misses nothing and steals nothing.
      callback();
      book.secured(socket, session);
    },
    onMailFrom(_address, session, callback) {
      const count = countersOf(book.recordOf(session));
      count.commands += 1;
      if (hungUp(session, count.commands)) return;
      later(() => callback(refusal(behaviour, 'MAIL', session.remoteAddress) ?? closing(count.commands)));
    },
    onRcptTo(address, session, answer) {
      const record = book.recordOf(session);
      const callback = (error: Error | null): void => {
        book.rcptAnswered(record);
        answer(error);
      };
      const count = countersOf(record);
      count.commands += 1;
      count.rcpts += 1;
      const rcpt = asciiAddress(address.address);
      book.stats.rcpts.push(rcpt);
      record?.rcpts.push(rcpt);
      if (hungUp(session, count.commands)) return;
      later(() => {
        const closed = refusal(behaviour, 'RCPT', session.remoteAddress) ?? closing(count.commands);
        if (closed) return callback(closed);
        if (behaviour.maxRcptPerSession !== undefined && count.rcpts > behaviour.maxRcptPerSession) {
          return callback(smtpError(452, '4.5.3 Too many recipients in this session'));
        }
        const decision = rcptDecision(behaviour, rcpt, greylistSeen, mailboxes, session.remoteAddress, {
          firstSeen: tripletSeen,
          sender: session.envelope.mailFrom ? session.envelope.mailFrom.address.toLowerCase() : '',
        });
        const tarpit = behaviour.tarpit;
        if (!tarpit || decision === null) return callback(decision);
        count.errors += 1;
        if (count.errors >= tarpit.closeAfterErrors)
          return callback(smtpError(421, '4.7.0 Error: too many errors, closing connection'));
        const wait = count.errors >= tarpit.afterErrors ? (count.errors - tarpit.afterErrors + 1) * tarpit.delayMs : 0;
        setTimeout(() => callback(decision), wait);
      });
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback(smtpError(554, '5.7.0 This test server never takes a message')));
    },
  });
  smtp.on('error', () => undefined);
  smtp.server.on('connection', (socket: Socket) => book.accept(socket));
  await listen(smtp.server, ip, port);
  return {
    name,
    ip,
    behaviour,
    stats: book.stats,
    stop: async () => {
      book.destroyAll();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}

/**
 * A PIPELINING host that answers each command `latencyMs` after it arrived, however many are in
 * flight (replies keep their order): a client's throughput is bound by round trips and its window.
 */
async function startRoundTripHost(
  name: string,
  ip: string,
  port: number,
  behaviour: HostBehaviour,
  gauge: SessionGauge,
): Promise<RunningHost> {
  const book = new SessionBook(gauge);
  const mailboxes = new Set((behaviour.mailboxes ?? []).map(asciiAddress));
  const latency = behaviour.latencyMs ?? 0;
  const tripletSeen = new Map<string, number>();
  const server = createNetServer((socket) => {
    // Each reply is due at its own time: Nagle would hold it until the client acknowledged the last.
    socket.setNoDelay(true);
    const record = book.accept(socket);
    let sender = '';
    // Replies due in order, drained by one timer: a timer per reply could fire out of order, since a timer's clock
    // (the event loop's, cached for a turn) lags Date.now() on a busy loop, and a reply overtaking another answers
    // the wrong command.
    const due: Array<{ at: number; text: string; then: (() => void) | undefined }> = [];
    let timer: NodeJS.Timeout | null = null;
    const drain = (): void => {
      timer = null;
      const now = Date.now();
      while (due[0] && due[0].at <= now) {
        const { text, then } = due.shift()!;
        if (socket.destroyed) return;
        socket.write(`${text}\r\n`);
        then?.();
      }
      if (due[0]) timer = setTimeout(drain, due[0].at - now);
    };
    const reply = (text: string, delay: number, then?: () => void): void => {
      const at = Math.max(Date.now() + delay, due.at(-1)?.at ?? 0);
      due.push({ at, text, then });
      timer ??= setTimeout(drain, Math.max(0, at - Date.now()));
    };
    reply(`220 ${name} ESMTP`, latency);
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline).replace(/\r$/, '');
        pending = pending.slice(newline + 1);
        const verb = line.split(' ', 1)[0]?.toUpperCase();
        if (verb === 'EHLO') reply(`250-${name}\r\n250-PIPELINING\r\n250 ENHANCEDSTATUSCODES`, 0);
        else if (verb === 'HELO' || verb === 'RSET' || verb === 'NOOP') reply('250 2.0.0 OK', 0);
        else if (verb === 'MAIL') {
          sender = (/<([^>]*)>/.exec(line)?.[1] ?? '').toLowerCase();
          reply('250 2.1.0 OK', latency);
        }
        else if (verb === 'RCPT') {
          const address = asciiAddress(/<([^>]*)>/.exec(line)?.[1] ?? '');
          book.stats.rcpts.push(address);
          record.rcpts.push(address);
          const decision = rcptDecision(behaviour, address, new Set(), mailboxes, socket.remoteAddress ?? '', {
            firstSeen: tripletSeen,
            sender,
          });
          const error = decision as (Error & { responseCode?: number }) | null;
          reply(error ? `${error.responseCode} ${error.message}` : '250 2.1.5 OK', latency, () => book.rcptAnswered(record));
        } else if (verb === 'QUIT') reply('221 2.0.0 Bye', 0, () => socket.end());
        else reply('502 5.5.2 Command not implemented', 0);
      }
    });
  });
  await listen(server, ip, port);
  return {
    name,
    ip,
    behaviour,
    stats: book.stats,
    stop: async () => {
      book.destroyAll();
      await closeServer(server);
    },
  };
}

/** Starts the host's server on ip:port; a `refused` host starts nothing. */
export async function startHost(
  name: string,
  ip: string,
  port: number,
  behaviour: HostBehaviour,
  gauge: SessionGauge,
): Promise<RunningHost> {
  if (behaviour.refused) return { name, ip, behaviour, stats: emptyStats(), stop: () => Promise.resolve() };
  if (behaviour.silent) return startSilentHost(name, ip, port, behaviour, gauge);
  if (behaviour.roundTripBound) return startRoundTripHost(name, ip, port, behaviour, gauge);
  return startSmtpHost(name, ip, port, behaviour, gauge);
}
