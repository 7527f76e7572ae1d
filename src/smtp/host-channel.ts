import type { ReplyClass, SmtpReply } from '../domain/smtp-reply.ts';
import { classifyRcptReply, formatReply } from '../domain/smtp-reply.ts';
import { blamesEgress } from '../domain/egress-block.ts';
import { EGRESS_BLOCKED, type EgressQuarantine, type Quarantine, quarantineKey } from './egress-quarantine.ts';
import type { AttemptTranscript, SessionOpening } from '../domain/smtp-transcript.ts';
import { rcptReplies, smtpConnections, smtpOpenSessions } from '../metrics.ts';
import type { HostLookup } from './dns.ts';
import { SmtpConnectionError, SmtpLeaseLostError, SmtpSessionRefusedError, SmtpTimeoutError, SmtpTlsError } from './errors.ts';
import type { FairSlots } from './fair-slots.ts';
import { HostPacing } from './pacing.ts';
import type { MxProvider, ProviderLimits } from '../domain/mx-provider.ts';
import type { SocksProxy } from '../domain/socks-proxy.ts';
import { HostQueue, type QueuedItem } from './host-queue.ts';
import { OpenSockets } from './open-sockets.ts';
import { SmtpSession } from './session.ts';
import { anotherSessionPays, shareOf } from './session-plan.ts';
import type { SessionLease, SharedBudget } from './shared-budget.ts';
import type { TlsResumption } from './connection.ts';
import { watchAbort } from './abort-watch.ts';

/** What a host said about one address, or why it said nothing; `attempt` is its transcript, when one was made. */
export type RcptAnswer = (
  /** `stage` MAIL: the sender was refused, which concerns every address of the transaction alike. */
  | { kind: 'reply'; reply: SmtpReply; klass: ReplyClass; stage: 'MAIL' | 'RCPT'; host: string }
  | { kind: 'failure'; reason: string; host: string }
  /** No session could be had with this host: the caller tries the domain's next MX. */
  | { kind: 'unusable'; reason: string }
  /** The host's provider refused this egress (CONTRACT §13): the caller asks through another egress. */
  | { kind: 'moved'; reason: string; reply: SmtpReply | null }
) & { attempt?: AttemptTranscript };

/** Why no session could be had, and the lines of the last try. */
interface Unusable {
  reason: string;
  opening: SessionOpening | null;
  /** The host refused the session with a reply that blames the egress. */
  blocked?: SmtpReply;
}

export interface ChannelContext {
  helo: string;
  from: string;
  port: number;
  timeoutMs: number;
  /** Sessions in a row that may break without answering an address before it is given up. */
  maxReconnects: number;
  /** RCPTs per transaction. */
  batchSize: number;
  slots: FairSlots;
  resolveHost: (host: string) => Promise<HostLookup>;
  /** The egress of this channel's sessions: a SOCKS5 proxy, or direct when null. */
  proxy?: SocksProxy | null;
  /** The local address direct sessions bind to (`SMTP_SOURCE_ADDRESSES`); the system's choice when absent. */
  localAddress?: string;
  /** The egress's name: the budget's and the metrics' key. */
  egress: string;
  /** The host's budget shared with every worker process; with none, this process's pacing alone decides. */
  budget?: SharedBudget | null;
  /** Egresses refused by a provider; with none, a reply that blames the egress is judged like any other. */
  quarantine?: EgressQuarantine | null;
}

interface Item extends QueuedItem {
  resolve: (answer: RcptAnswer) => void;
  /** The next address of an in-turn sequence, asked in the same transaction once this one was answered (or null). */
  follow?: () => Item | null;
}

const REJECTED: ReadonlySet<ReplyClass> = new Set(['mailbox-unknown', 'rejected', 'policy']);
const isPositive = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;
/** 4.7.x is rate limiting or reputation, except the greylisting servers that also say 4.7.1. */
const isThrottle = (reply: SmtpReply): boolean =>
  reply.code === 421 ||
  (reply.code >= 400 &&
    reply.code < 500 &&
    (reply.enhanced?.startsWith('4.7.') ?? false) &&
    !/gr[ae]y/i.test(reply.text));

/** Rejected RCPTs a session has spent, and may spend (see HostPacing.sessionBudget). */
interface RejectBudget {
  rejects: number;
  limit: number;
}

/** A transaction's end: the session may go on, or must close (the reason, for addresses given up). */
type SessionEnd = { drained: true } | { drained: false; reason: string };

/** One transaction's addresses and how far it got. */
interface Transaction {
  session: SmtpSession;
  /** The addresses taken from the queue; an in-turn sequence's next one joins once the one before it is answered. */
  batch: Item[];
  /** How many of `batch` are answered (they are answered in order). */
  settled: number;
  /** Rejected RCPTs of this transaction, not yet counted in `budget`. */
  rejects: number;
  budget: RejectBudget;
  hooks: SessionHooks;
}

/** What a session's transactions tell it: an address answered; the session is about to end (its QUIT is written). */
interface SessionHooks {
  onAnswer: () => void;
  freeingSoon: () => void;
}

/** Why a window stopped being read: a reply that ends the session, and the one that refused the egress, if any. */
interface Halt {
  stop: string | null;
  blocked: SmtpReply | null;
}

/**
 * Every address any caller wants asked of one MX host, whatever its domain, and the sessions that
 * ask them: up to the host's pacing allowance, RCPTs of several domains in one transaction, in
 * pipelined windows when the host offers PIPELINING. An address a session could not get answered
 * (452, 421, a drop, the session's rejection budget) goes back to the front of the queue for the
 * next session: it is never guessed.
 */
export class HostChannel {
  readonly host: string;
  readonly provider: MxProvider;
  readonly pacing: HostPacing;
  readonly #ctx: ChannelContext;
  readonly #queue = new HostQueue<Item>();
  /** Sessions opening or open (each holds, or waits for, a connection slot). */
  #sessions = 0;
  /** Sessions past their greeting and EHLO. */
  #openSessions = 0;
  #peakSessions = 0;
  #timer: NodeJS.Timeout | null = null;
  #pumpQueued = false;
  #withoutTls = false;
  readonly #tls: TlsResumption = {
    session: undefined,
    remember: (session) => {
      this.#tls.session = session;
    },
  };
  #withoutPipelining = false;
  #lookup: Promise<HostLookup> | null = null;
  /** Sessions in a row that broke without answering anything. */
  #fruitlessRun = 0;
  /** Aborts sessions still being opened once nobody waits for an answer any more. */
  #opening = new AbortController();
  /** How long the last session took from connect to EHLO answered (ms); null before one opened. */
  #openMs: number | null = null;
  /** Sessions opening or open, by the owner each was opened for. */
  readonly #sessionsFor = new Map<string, number>();

  constructor(host: string, provider: MxProvider, limits: ProviderLimits, ctx: ChannelContext) {
    this.host = host;
    this.provider = provider;
    const { budget } = ctx;
    const key = { egress: ctx.egress, host };
    this.pacing = new HostPacing(
      limits,
      budget
        ? {
            throttled: (pauseMs) => budget.throttled(key, pauseMs),
            recovered: () => budget.recovered(key, limits.connections),
            learnt: (patience) => budget.learnt(key, patience),
          }
        : null,
    );
    this.#ctx = ctx;
  }

  /** Most sessions this channel had open (or opening) at once. */
  get peakSessions(): number {
    return this.#peakSessions;
  }

  /** Addresses waiting here plus sessions at work: how busy this egress is with the host. */
  get load(): number {
    return this.#queue.waiting + this.#sessions * this.#ctx.batchSize;
  }

  get idle(): boolean {
    return this.#sessions === 0 && this.#queue.waiting === 0;
  }

  ask(
    address: string,
    options: { owner: string; probe?: boolean; signal?: AbortSignal },
  ): Promise<RcptAnswer> {
    options.signal?.throwIfAborted();
    return new Promise<RcptAnswer>((resolve, reject) => {
      this.#queue.push(this.#item(address, options, resolve, reject));
      this.#pumpSoon();
    });
  }

  /**
   * Addresses asked one after the other in one transaction, each once the one before it was answered and
   * `goOn(answer)` wants the next (the email finder: stop at the first accepted). Resolves with the answers of
   * those asked, in order; the ones after the last answer were never asked. Only a RCPT's own reply can lead on:
   * an address answered any other way (withdrawn, the host unusable, the session broken) ends the sequence.
   */
  askInTurn(
    addresses: readonly string[],
    options: { owner: string; signal?: AbortSignal; goOn: (answer: RcptAnswer) => boolean },
  ): Promise<RcptAnswer[]> {
    const { goOn, ...itemOptions } = options;
    itemOptions.signal?.throwIfAborted();
    return new Promise<RcptAnswer[]>((resolve, reject) => {
      const answers: RcptAnswer[] = [];
      const itemAt = (index: number): Item => {
        let next: (() => Item) | null = null;
        const item = this.#item(
          addresses[index]!,
          itemOptions,
          (answer) => {
            answers.push(answer);
            if (index + 1 < addresses.length && answer.kind === 'reply' && answer.stage === 'RCPT' && goOn(answer)) {
              next = () => itemAt(index + 1);
              // The transaction that got this reply takes the next address right away; nothing else may.
              queueMicrotask(() => {
                if (next) resolve(answers);
                next = null;
              });
            } else resolve(answers);
          },
          reject,
        );
        item.follow = () => {
          const take = next;
          next = null;
          return take ? take() : null;
        };
        return item;
      };
      if (addresses.length === 0) return resolve(answers);
      this.#queue.push(itemAt(0));
      this.#pumpSoon();
    });
  }

  /** A queue item for `address` that settles the caller's promise once, whoever answers it. */
  #item(
    address: string,
    options: { owner: string; probe?: boolean; signal?: AbortSignal },
    resolve: (answer: RcptAnswer) => void,
    reject: (reason: unknown) => void,
  ): Item {
    const { signal } = options;
    const onAbort = (): void => {
      this.#queue.unqueue(item);
      item.done = true;
      reject(signal?.reason);
      if (this.#queue.waiting === 0) {
        this.#opening.abort(signal?.reason);
        this.#opening = new AbortController();
      }
    };
    const item: Item = {
      address,
      owner: options.owner,
      probe: options.probe ?? false,
      done: false,
      queued: false,
      resolve: (answer) => {
        if (item.done) return;
        this.#queue.unqueue(item);
        item.done = true;
        unwatch();
        resolve(answer);
      },
    };
    const unwatch = signal ? watchAbort(signal, onAbort) : () => false;
    return item;
  }

  /** Withdraws addresses whose answer is no longer needed (the domain turned out catch-all). */
  withdraw(addresses: ReadonlySet<string>, owner: string): void {
    for (const item of this.#queue.find(owner, addresses))
      item.resolve({ kind: 'failure', reason: 'withdrawn', host: this.host });
  }

  /**
   * Opens sessions while the pacing allows and another one is worth it: when the waiting addresses are more than
   * the open ones' transactions hold, or when they would finish sooner on one more session (session-plan.ts)
   * and a slot is free (taking one another host waits for would only move the wait there). Work means real
   * addresses: a session asks the catch-all probes first in its transaction, before them, so a probe is no
   * reason for another session (each costs a connection, a greeting and EHLO).
   */
  #pump(): void {
    for (;;) {
      if (this.#queue.waiting === 0 || this.#sessions >= this.pacing.allowed) return;
      if (this.#sessions > 0 && !this.#wantsAnotherSession()) return;
      const wait = this.pacing.waitBeforeOpen();
      if (wait > 0) {
        if (this.#timer === null) {
          this.#timer = setTimeout(() => {
            this.#timer = null;
            this.#pump();
          }, wait);
        }
        return;
      }
      this.#sessions += 1;
      this.#peakSessions = Math.max(this.#peakSessions, this.#sessions);
      this.pacing.opened();
      void this.#runSession();
    }
  }

  /**
   * Pumps once the caller's synchronous run of asks is queued: a domain's addresses arrive one call each, and
   * judging after the first few would open sessions for a queue that is not yet all there.
   */
  #pumpSoon(): void {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    queueMicrotask(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  /**
   * An owner with items waiting here and no session opened for it. The open sessions' transactions took what
   * waited when they began, so its items would wait them out: a small job's address behind a large job's hundred.
   */
  #ownerWithoutSession(): string | undefined {
    return this.#queue.owners().find((owner) => !this.#sessionsFor.has(owner));
  }

  #countSession(owner: string, by: 1 | -1): void {
    const count = (this.#sessionsFor.get(owner) ?? 0) + by;
    if (count === 0) this.#sessionsFor.delete(owner);
    else this.#sessionsFor.set(owner, count);
  }

  #wantsAnotherSession(): boolean {
    // Each owner (job) at the host gets a session of its own, within the host's limit (#pump checks it).
    if (this.#ownerWithoutSession() !== undefined) return true;
    const waiting = this.#queue.waitingAddresses;
    if (waiting > this.#sessions * this.#ctx.batchSize) return true;
    const perAddressMs = this.pacing.replyMs;
    if (perAddressMs === null || this.#openMs === null || !this.#ctx.slots.spare) return false;
    // Beside an undecided trial a session may spend only the provider's budget of rejections: on a list dense in
    // them it would end after a few addresses, its opening unpaid. Time alone is no reason before the answer.
    if (this.pacing.trialPending(this.#queue.waiting)) return false;
    return anotherSessionPays({ waiting, sessions: this.#sessions, perAddressMs, openMs: this.#openMs });
  }

  async #runSession(): Promise<void> {
    let release: (() => void) | null = null;
    let lease: SessionLease | null = null;
    // One try at the lease as soon as the slot is promised (a session about to end still holds it): it is ready when
    // the slot is freed. Should that try find the host full, the lease is waited for once the slot is granted.
    let early: Promise<SessionLease | null> | null = null;
    let session: SmtpSession | null = null;
    const sockets = new OpenSockets();
    const metric = { mx_provider: this.provider, egress: this.#ctx.egress };
    let owner: string | undefined;
    try {
      if (this.#quarantined()) return this.#moveAway([]);
      owner = this.#ownerWithoutSession() ?? this.#queue.leastQueuedOwner();
      if (owner === undefined) return;
      this.#countSession(owner, 1);
      const shared = this.#ctx.budget;
      const key = { egress: this.#ctx.egress, host: this.host };
      const leaseFor = (budget: SharedBudget, once: boolean) =>
        budget.acquire(key, this.pacing.limits, { mx_provider: this.provider }, this.#opening.signal, { once });
      release = await this.#ctx.slots.acquire(owner, shared ? { promised: () => void (early ??= leaseFor(shared, true)) } : {});
      if (this.#queue.waiting === 0) return;
      if (shared) {
        lease = (early ? await early : null) ?? (await leaseFor(shared, false));
        if (lease === null || this.#queue.waiting === 0) return;
        this.pacing.adopt(lease.allowed, lease.patience);
      }
      this.#queue.putFirst(owner);
      // A lost lease ends the session: another process may be using its slot already.
      const signal = lease ? AbortSignal.any([this.#opening.signal, lease.lost]) : this.#opening.signal;
      const openStarted = Date.now();
      const opened = await this.#open(signal, sockets);
      if (!(opened instanceof SmtpSession)) {
        if (opened.blocked) this.#egressBlocked(opened.blocked, []);
        // A session of this host that is open still works through the queue; with none, give up.
        else if (this.#openSessions === 0) this.#giveUpHost(opened);
        return;
      }
      session = opened;
      this.#openMs = Date.now() - openStarted;
      this.#openSessions += 1;
      smtpOpenSessions.inc(metric);
      // Postfix announces itself by default, and its soft error limit is known: no trial needed.
      if (/\bPostfix\b/i.test(session.greeting.text)) this.pacing.punishesRejections();
      const before = this.pacing.patience;
      const budget = { rejects: 0, limit: this.pacing.sessionBudget(this.#queue.waiting) };
      // Only the session that began the trial may call it off: one opened beside it spends the provider's budget.
      const trial = before !== 'trial' && this.pacing.patience === 'trial';
      let answered = 0;
      let end: SessionEnd = { drained: false, reason: 'nothing to ask' };
      const slot = release;
      const hooks: SessionHooks = { onAnswer: () => (answered += 1), freeingSoon: () => this.#ctx.slots.freeingSoon(slot) };
      try {
        while ((end = await this.#transaction(session, budget, hooks)).drained) {
          // Between transactions the slot goes back to the ring when another owner waits for one.
          if (this.#queue.waiting === 0 || session.quitting || this.#ctx.slots.othersWaiting(owner)) return;
          const rset = await session.rset();
          if (!isPositive(rset)) return;
          // A small job whose addresses joined this host's queue meanwhile is served next.
          this.#queue.putFirst(this.#queue.leastQueuedOwner() ?? owner);
        }
      } finally {
        if (trial) this.pacing.trialUndecided();
      }
      // Sessions that break before answering anything may follow each other only so often.
      this.#fruitlessRun = answered > 0 ? 0 : this.#fruitlessRun + 1;
      if (this.#fruitlessRun > this.#ctx.maxReconnects) {
        this.#fruitlessRun = 0;
        for (const item of this.#queue.drain())
          item.resolve({ kind: 'failure', reason: end.reason, host: this.host, attempt: session.attempt(item.address) });
      }
    } catch (error) {
      if (!(error instanceof SmtpConnectionError)) {
        for (const item of this.#queue.drain())
          item.resolve({
            kind: 'failure',
            reason: error instanceof Error ? error.message : String(error),
            host: this.host,
          });
      }
    } finally {
      if (session) {
        this.#openSessions -= 1;
        smtpOpenSessions.dec(metric);
        if (release) this.#ctx.slots.freeingSoon(release);
        await session.quit().catch(() => undefined);
      }
      // The host counts a connection until its socket is closed: the slot is held until then (CONTRACT §11).
      await sockets.closeAll();
      // A lease taken early and never used (the addresses went elsewhere meanwhile) is given back.
      if (early && !lease) lease = await early;
      // The connection is closed: another session may have the slot while the lease's release is on its way (one of
      // this host already waiting for a slot may still find the lease counted and wait a poll, never past the limit).
      const released = lease?.release();
      release?.();
      // Released before this process asks for the host again: its next session must not find its own old lease.
      await released;
      if (owner !== undefined) this.#countSession(owner, -1);
      this.#sessions -= 1;
      this.#pump();
    }
  }

  #blamesEgress(reply: SmtpReply): boolean {
    return this.#ctx.quarantine != null && blamesEgress(reply);
  }

  #quarantined(): Quarantine | undefined {
    return this.#ctx.quarantine?.holding(this.#ctx.egress, quarantineKey(this.provider, this.host));
  }

  /** The host refused this egress: it is quarantined for the host's provider, and every address here moves. */
  #egressBlocked(reply: SmtpReply, items: readonly Item[]): void {
    this.#ctx.quarantine?.block(this.#ctx.egress, quarantineKey(this.provider, this.host), formatReply(reply));
    this.#moveAway(items, reply);
  }

  #moveAway(items: readonly Item[], reply: SmtpReply | null = null): void {
    const held = this.#quarantined();
    const who = this.provider === 'other' ? this.host : this.provider;
    const reason = `${EGRESS_BLOCKED}: ${who} refused egress ${this.#ctx.egress}${held ? ` (${held.reply})` : ''}`;
    for (const item of [...items, ...this.#queue.drain()]) item.resolve({ kind: 'moved', reason, reply });
  }

  #giveUpHost({ reason, opening }: Unusable): void {
    for (const item of this.#queue.drain())
      item.resolve({ kind: 'unusable', reason, ...(opening ? { attempt: { at: opening.at, opening, lines: [] } } : {}) });
  }

  /**
   * One MAIL FROM and the batch's RCPTs. Returns 'drained' when the session may carry on with
   * another transaction, 'ended' when it must close (the rest of the batch is queued again).
   */
  async #transaction(session: SmtpSession, budget: RejectBudget, hooks: SessionHooks): Promise<SessionEnd> {
    // Another session of this channel was refused as an egress meanwhile: this one asks no more either.
    if (this.#quarantined()) {
      this.#moveAway([]);
      return { drained: false, reason: 'egress quarantined' };
    }
    const batch = this.#takeShare(this.#ctx.batchSize);
    if (batch.length === 0) return { drained: false, reason: 'nothing to ask' };
    const tx: Transaction = { session, batch, settled: 0, rejects: 0, budget, hooks };
    try {
      return await this.#askBatch(tx);
    } catch (error) {
      if (!(error instanceof SmtpConnectionError)) throw error;
      return this.#transactionBroken(tx, error);
    }
  }

  /** MAIL FROM, then the batch's RCPTs window by window until all are answered or the session must end. */
  async #askBatch(tx: Transaction): Promise<SessionEnd> {
    // With PIPELINING, MAIL FROM goes out with the first window: one round trip less per transaction.
    const pipelining = tx.session.pipelining && !this.#withoutPipelining;
    if (!pipelining) {
      const mail = await tx.session.mailFrom(this.#ctx.from);
      if (!isPositive(mail)) return this.#senderRefused(tx.session, mail, tx.batch, true);
    }
    let mailSent = !pipelining;
    const window = pipelining ? this.pacing.limits.window : 1;
    do {
      while (tx.settled < tx.batch.length) {
        const end = await this.#askWindow(tx, window, mailSent);
        mailSent = true;
        if (end) return end;
      }
    } while (this.#followProbes(tx));
    tx.budget.rejects += tx.rejects;
    return { drained: true };
  }

  /**
   * A transaction of catch-all probes goes on with real addresses once the probes are answered: each verdict is
   * in by then (a domain found catch-all has withdrawn its addresses), and a RSET and a second MAIL FROM would
   * cost two round trips a session. The probes come first, so none of them is asked after a real address and
   * no verdict rests on what the real ones did to the session. True when it took more.
   */
  #followProbes(tx: Transaction): boolean {
    const room = this.#ctx.batchSize - tx.batch.length;
    if (room <= 0 || tx.session.quitting || !tx.batch.every((item) => item.probe) || this.#quarantined()) return false;
    const more = this.#takeShare(room);
    tx.batch.push(...more);
    return more.length > 0;
  }

  /** This session's share of the waiting items, at most `most`. */
  #takeShare(most: number): Item[] {
    // What this session learnt so far (its opening, the replies) may make another one worth it before it takes its share.
    this.#pump();
    return this.#queue.take(Math.min(most, shareOf(this.#queue.waiting, this.#sessions, this.#ctx.batchSize)));
  }

  /** One window of RCPTs (with MAIL FROM when not sent yet); the session's end, or null when it goes on. */
  async #askWindow(tx: Transaction, window: number, mailSent: boolean): Promise<SessionEnd | null> {
    const left = tx.budget.limit - tx.budget.rejects - tx.rejects;
    const chunk = tx.batch.slice(tx.settled, tx.settled + Math.max(1, Math.min(window, left)));
    const halt: Halt = { stop: null, blocked: null };
    let last = Date.now();
    try {
      const mail = await tx.session.rcptWindow(
        chunk.map((item) => item.address),
        (k, reply, attempt) => {
          if (halt.stop !== null) return false;
          const now = Date.now();
          const delay = now - last;
          const tarpit = this.pacing.replied(delay, now);
          last = now;
          if (!this.#rcptAnswered(tx, halt, chunk[k], reply, attempt)) return false;
          if (k === chunk.length - 2 && this.#endsSession(tx)) {
            tx.session.sendQuit();
            tx.hooks.freeingSoon();
          }
          // Waiting out the rest of a tarpit's window would cost what ending the session saves.
          if (tarpit) halt.stop = `${this.host} slowed down (${delay} ms for a reply)`;
          return halt.stop === null;
        },
        mailSent ? undefined : this.#ctx.from,
      );
      // The window's RCPTs were never judged: the session ends (their replies are unread).
      if (mail && !isPositive(mail)) return this.#senderRefused(tx.session, mail, tx.batch, false);
    } catch (error) {
      // A 421 closes the connection: the replies after it never come, which is expected.
      if (halt.stop === null || !(error instanceof SmtpConnectionError)) throw error;
    }
    return this.#windowEnd(tx, halt);
  }

  /**
   * One RCPT's reply: the address answered (true), or the reply ends the session before it (false, `halt` says
   * why): a refusal of the egress, a host closing or out of room for recipients.
   */
  #rcptAnswered(tx: Transaction, halt: Halt, item: Item | undefined, reply: SmtpReply, attempt: AttemptTranscript): boolean {
    if (this.#blamesEgress(reply)) {
      halt.blocked = reply;
      halt.stop = formatReply(reply);
      return false;
    }
    const klass = classifyRcptReply(reply);
    rcptReplies.inc({ result: klass, mx_provider: this.provider });
    if (klass === 'too-many-recipients' || klass === 'closing') {
      if (isThrottle(reply)) this.pacing.throttled();
      // A host that hangs up on a session past the budget punishes rejections.
      if (klass === 'closing' && tx.budget.rejects + tx.rejects > this.pacing.limits.rejectsPerSession)
        this.pacing.punishesRejections();
      halt.stop = formatReply(reply);
      return false;
    }
    if (klass === 'temporary' && isThrottle(reply)) this.pacing.throttled();
    if (REJECTED.has(klass)) {
      tx.rejects += 1;
      this.pacing.rejectionsAnswered(tx.budget.rejects + tx.rejects);
      if (this.pacing.patience === 'patient') tx.budget.limit = Number.POSITIVE_INFINITY;
    }
    item?.resolve({ kind: 'reply', reply, klass, stage: 'RCPT', host: this.host, attempt });
    const next = item?.follow?.();
    if (next) tx.batch.push(next);
    tx.settled += 1;
    tx.hooks.onAnswer();
    return true;
  }

  /**
   * Asked with one reply of the transaction still to come: that reply ends it, and with nothing queued for the host
   * and no address to follow it, the session would end after it too. Its QUIT may go out now.
   */
  #endsSession(tx: Transaction): boolean {
    return tx.settled + 1 === tx.batch.length && this.#queue.waiting === 0 && !tx.batch.at(-1)?.follow;
  }

  /** After a window: the session's end (the egress refused, a stop, the rejection budget spent), or null to go on. */
  #windowEnd(tx: Transaction, halt: Halt): SessionEnd | null {
    if (halt.blocked) {
      this.#egressBlocked(halt.blocked, tx.batch.slice(tx.settled));
      return { drained: false, reason: formatReply(halt.blocked) };
    }
    if (halt.stop !== null) return this.#requeueRest(tx, halt.stop);
    if (tx.budget.rejects + tx.rejects >= tx.budget.limit) return this.#requeueRest(tx, 'rejection budget of the session spent');
    return null;
  }

  #requeueRest(tx: Transaction, reason: string): SessionEnd {
    tx.budget.rejects += tx.rejects;
    this.#queue.requeue(tx.batch.slice(tx.settled));
    return { drained: false, reason };
  }

  /** The connection broke mid-transaction: the addresses not answered go back to the queue (but a silent one). */
  #transactionBroken(tx: Transaction, error: SmtpConnectionError): SessionEnd {
    // A host that breaks off a pipelined window without a single reply is asked one command at a
    // time from now on: some servers mishandle PIPELINING they advertise.
    if (tx.settled === 0 && tx.session.pipelining) this.#withoutPipelining = true;
    const rest = tx.batch.slice(tx.settled);
    // A server that sits on a RCPT would sit on it again: that address is settled as a timeout.
    const silent = error instanceof SmtpTimeoutError && error.stage === 'RCPT' ? rest.shift() : undefined;
    if (silent) {
      silent.resolve({ kind: 'failure', reason: error.message, host: this.host, attempt: tx.session.attempt(silent.address) });
    } else if (!(error instanceof SmtpTimeoutError) && !(error instanceof SmtpLeaseLostError)) {
      this.pacing.throttled();
    }
    this.#queue.requeue(rest);
    return { drained: false, reason: error.message };
  }

  /** MAIL FROM refused: it concerns every address of the transaction alike; a 421 or 452 sends them on. */
  #senderRefused(session: SmtpSession, mail: SmtpReply, batch: Item[], canContinue: boolean): SessionEnd {
    if (this.#blamesEgress(mail)) {
      this.#egressBlocked(mail, batch);
      return { drained: false, reason: formatReply(mail) };
    }
    const klass = classifyRcptReply(mail);
    if (klass === 'closing' || klass === 'too-many-recipients') {
      if (isThrottle(mail)) this.pacing.throttled();
      this.#queue.requeue(batch);
      return { drained: false, reason: formatReply(mail) };
    }
    for (const item of batch)
      item.resolve({ kind: 'reply', reply: mail, klass, stage: 'MAIL', host: this.host, attempt: session.attempt(item.address) });
    return canContinue ? { drained: true } : { drained: false, reason: formatReply(mail) };
  }

  /** A session on one of the host's addresses, or why none could be had. */
  async #open(signal: AbortSignal, sockets: OpenSockets): Promise<SmtpSession | Unusable> {
    this.#lookup ??= this.#ctx.resolveHost(this.host);
    const lookup = await this.#lookup;
    if (lookup.kind === 'none') return { reason: `${this.host} has no A or AAAA record`, opening: null };
    if (lookup.kind === 'dns-error') return { reason: lookup.reason, opening: null };
    const failed: Unusable = { reason: `${this.host} has no address`, opening: null };
    for (const ip of lookup.addresses) {
      try {
        const session = await this.#connect(ip, signal, sockets);
        smtpConnections.inc({ outcome: 'opened', mx_provider: this.provider });
        return session;
      } catch (error) {
        // Not the host's fault: its addresses wait in the queue for the next session.
        if (!(error instanceof SmtpConnectionError) || error instanceof SmtpLeaseLostError) throw error;
        smtpConnections.inc({ outcome: 'failed', mx_provider: this.provider });
        if (error instanceof SmtpSessionRefusedError && this.#blamesEgress(error.reply))
          return { reason: error.message, opening: error.opening, blocked: error.reply };
        if (error instanceof SmtpSessionRefusedError && error.reply.code === 421) this.pacing.throttled();
        failed.reason = error.message;
        failed.opening = error.opening;
      }
    }
    return failed;
  }

  async #connect(ip: string, signal: AbortSignal, sockets: OpenSockets): Promise<SmtpSession> {
    const startTls = !this.#withoutTls;
    const options = {
      host: this.host,
      ip,
      port: this.#ctx.port,
      helo: this.#ctx.helo,
      timeoutMs: this.#ctx.timeoutMs,
      startTls,
      tls: this.#tls,
      signal,
      sockets,
      proxy: this.#ctx.proxy,
      ...(this.#ctx.localAddress ? { localAddress: this.#ctx.localAddress } : {}),
    };
    try {
      return await SmtpSession.open(options);
    } catch (error) {
      if (!(error instanceof SmtpTlsError) || !startTls) throw error;
      // A broken TLS stack should not cost the answer: this host is asked in plain text from now on.
      this.#withoutTls = true;
      return SmtpSession.open({ ...options, startTls: false });
    }
  }
}
