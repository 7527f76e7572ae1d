import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReplyClass, SmtpReply } from '../domain/smtp-reply.ts';
import { classifyRcptReply, formatReply } from '../domain/smtp-reply.ts';
import type { HostLookup, MxHost } from './dns.ts';
import { SmtpConnectionError, SmtpTimeoutError, SmtpTlsError } from './errors.ts';
import type { ConnectionLimits, Release } from './limits.ts';
import { SmtpSession } from './session.ts';

export interface DomainProbeContext {
  helo: string;
  from: string;
  port: number;
  timeoutMs: number;
  greylistDelayMs: number;
  greylistAttempts: number;
  maxReconnects: number;
  limits: ConnectionLimits;
  resolveHost: (host: string) => Promise<HostLookup>;
  signal?: AbortSignal;
}

/** What the servers said about one address: a reply to its RCPT, or why none could be had. */
export type AddressFinding =
  | { kind: 'reply'; reply: SmtpReply; class: ReplyClass; host: string; attempts: number }
  | { kind: 'failure'; reason: string; host: string | null };

export interface CatchAllVerdict {
  value: boolean | null;
  /** Reply to the random address, or why it has none. */
  reason: string;
  host: string | null;
}

export interface DomainProbeResult {
  catchAll: CatchAllVerdict;
  /** Final finding per address answered before the catch-all verdict; moot when it is true. */
  findings: Map<string, AddressFinding>;
  /** Host of the last session that could be opened, null when none could. */
  lastHost: string | null;
}

type SessionEnd =
  | { kind: 'drained'; answered: number }
  | { kind: 'catch-all' }
  | { kind: 'reconnect'; answered: number; reason: string };

type Opened = { ok: true; session: SmtpSession; release: Release } | { ok: false; reason: string };

const isPositive = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;

/** Waits `ms`; on abort, rejects with the signal's own reason rather than a generic AbortError. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
}

/** 24 random lowercase letters: a local part no real mailbox has. */
export function randomLocalPart(): string {
  let local = '';
  for (let i = 0; i < 24; i += 1) local += String.fromCharCode(97 + randomInt(26));
  return local;
}

/**
 * Probes every address of one domain over as few SMTP sessions as its MX hosts allow:
 * - the catch-all check (a random address, in its own transaction) comes first in the first session;
 *   once it is accepted nothing else needs asking;
 * - all addresses then share one transaction; a session that ends early (452 recipient budget,
 *   421, dropped connection, timeout) is followed by a new one for the rest, and sessions that
 *   answer nothing may follow each other at most `maxReconnects` times;
 * - addresses answered with a 4xx are asked again in a new session after `greylistDelayMs`,
 *   `greylistAttempts` times in all;
 * - MX hosts are used in preference order; a host that cannot be used is not tried again.
 *
 * `onFinding` receives each address's final finding as soon as the catch-all verdict allows it to
 * stand (a finding made while the verdict is still pending waits for it).
 */
export class DomainProbe {
  readonly #ctx: DomainProbeContext;
  readonly #hosts: readonly MxHost[];
  readonly #domain: string;
  readonly #onFinding: (address: string, finding: AddressFinding) => void;
  #hostIndex = 0;
  readonly #hostFailures: string[] = [];
  readonly #withoutTls = new Set<string>();
  readonly #hostLookups = new Map<string, HostLookup>();
  #lastHost: string | null = null;

  // One random address per probe, reused across attempts: greylisting remembers addresses.
  readonly #catchAllAddress: string;
  #catchAll: CatchAllVerdict | null = null;
  #catchAllDeferred: { reply: SmtpReply; host: string } | null = null;
  #catchAllAskedThisRound = false;

  readonly #findings = new Map<string, AddressFinding>();
  readonly #deferred = new Map<string, { reply: SmtpReply; host: string }>();
  readonly #attempts = new Map<string, number>();
  #waitingForCatchAll: string[] = [];

  constructor(
    ctx: DomainProbeContext,
    domain: string,
    hosts: readonly MxHost[],
    onFinding: (address: string, finding: AddressFinding) => void = () => undefined,
  ) {
    this.#ctx = ctx;
    this.#domain = domain;
    this.#hosts = hosts;
    this.#onFinding = onFinding;
    this.#catchAllAddress = `${randomLocalPart()}@${domain}`;
  }

  async run(addresses: readonly string[]): Promise<DomainProbeResult> {
    let pending = [...addresses];
    for (let attempt = 1; attempt <= this.#ctx.greylistAttempts; attempt += 1) {
      this.#catchAllAskedThisRound = false;
      if ((await this.#round(pending)) === 'catch-all') break;
      pending = pending.filter((address) => !this.#findings.has(address));
      if (pending.length === 0 && this.#catchAll !== null) break;
      if (attempt < this.#ctx.greylistAttempts) await pause(this.#ctx.greylistDelayMs, this.#ctx.signal);
    }
    this.#settleLeftovers(pending);
    return {
      catchAll: this.#catchAll ?? { value: null, reason: 'catch-all check not run', host: null },
      findings: this.#findings,
      lastHost: this.#lastHost,
    };
  }

  /** One pass over `addresses` (and the catch-all check while undecided), over as many sessions as needed. */
  async #round(addresses: readonly string[]): Promise<'catch-all' | 'done'> {
    const work = [...addresses];
    let fruitless = 0;
    while (work.length > 0 || this.#needsCatchAllCheck()) {
      const opened = await this.#openSession();
      if (!opened.ok) {
        this.#giveUp(work, opened.reason, null);
        return 'done';
      }
      let end: SessionEnd;
      try {
        end = await this.#runSession(opened.session, work);
      } finally {
        try {
          await opened.session.quit();
        } finally {
          opened.release();
        }
      }
      if (end.kind === 'catch-all') return 'catch-all';
      if (end.kind === 'drained') continue;
      fruitless = end.answered === 0 ? fruitless + 1 : 0;
      if (fruitless > this.#ctx.maxReconnects) {
        this.#giveUp(work, end.reason, opened.session.host);
        return 'done';
      }
    }
    return 'done';
  }

  #needsCatchAllCheck(): boolean {
    return this.#catchAll === null && !this.#catchAllAskedThisRound;
  }

  async #runSession(session: SmtpSession, work: string[]): Promise<SessionEnd> {
    const host = session.host;
    let answered = 0;
    let inFlight: string | null = null;
    try {
      if (this.#needsCatchAllCheck()) {
        const mail = await session.mailFrom(this.#ctx.from);
        if (!isPositive(mail)) return this.#senderRefused(mail, host, work);
        inFlight = this.#catchAllAddress;
        const reply = await session.rcptTo(this.#catchAllAddress);
        inFlight = null;
        const klass = classifyRcptReply(reply);
        if (klass === 'too-many-recipients' || klass === 'closing')
          return { kind: 'reconnect', answered, reason: formatReply(reply) };
        answered += 1;
        if (klass === 'accepted') {
          this.#settleCatchAll({ value: true, reason: formatReply(reply), host });
          return { kind: 'catch-all' };
        }
        if (klass === 'temporary') {
          this.#catchAllDeferred = { reply, host };
          this.#catchAllAskedThisRound = true;
        } else {
          this.#settleCatchAll({
            value: klass === 'mailbox-unknown' ? false : null,
            reason: formatReply(reply),
            host,
          });
        }
        // The random address must not share a transaction with the real ones.
        const rset = await session.rset();
        if (!isPositive(rset)) return { kind: 'reconnect', answered, reason: formatReply(rset) };
      }
      if (work.length === 0) return { kind: 'drained', answered };
      const mail = await session.mailFrom(this.#ctx.from);
      if (!isPositive(mail)) return this.#senderRefused(mail, host, work);
      for (let address = work[0]; address !== undefined; address = work[0]) {
        inFlight = address;
        const reply = await session.rcptTo(address);
        inFlight = null;
        const klass = classifyRcptReply(reply);
        // The address was not judged: it goes to the next session.
        if (klass === 'too-many-recipients' || klass === 'closing')
          return { kind: 'reconnect', answered, reason: formatReply(reply) };
        work.shift();
        answered += 1;
        this.#recordReply(address, reply, klass, host);
      }
      return { kind: 'drained', answered };
    } catch (error) {
      if (!(error instanceof SmtpConnectionError)) throw error;
      // A server that sits on a RCPT would sit on it again: that address is settled as a timeout.
      if (error instanceof SmtpTimeoutError && inFlight !== null) {
        if (inFlight === this.#catchAllAddress)
          this.#settleCatchAll({ value: null, reason: error.message, host });
        else {
          work.shift();
          this.#recordFinal(inFlight, { kind: 'failure', reason: error.message, host });
        }
      }
      return { kind: 'reconnect', answered, reason: error.message };
    }
  }

  /** MAIL FROM refused: the refusal concerns every address of the transaction alike. */
  #senderRefused(reply: SmtpReply, host: string, work: string[]): SessionEnd {
    const klass = classifyRcptReply(reply);
    if (klass === 'closing' || klass === 'too-many-recipients')
      return { kind: 'reconnect', answered: 0, reason: formatReply(reply) };
    const answered = work.length;
    if (klass === 'temporary') {
      if (this.#needsCatchAllCheck()) {
        this.#catchAllDeferred = { reply, host };
        this.#catchAllAskedThisRound = true;
      }
      for (const address of work.splice(0)) this.#recordReply(address, reply, klass, host);
      return { kind: 'drained', answered };
    }
    const reason = `sender refused by ${host}: ${formatReply(reply)}`;
    if (this.#catchAll === null) this.#settleCatchAll({ value: null, reason, host });
    for (const address of work.splice(0)) this.#recordFinal(address, { kind: 'failure', reason, host });
    return { kind: 'drained', answered };
  }

  #recordReply(address: string, reply: SmtpReply, klass: ReplyClass, host: string): void {
    const attempts = (this.#attempts.get(address) ?? 0) + 1;
    this.#attempts.set(address, attempts);
    if (klass === 'temporary') this.#deferred.set(address, { reply, host });
    else this.#recordFinal(address, { kind: 'reply', reply, class: klass, host, attempts });
  }

  #recordFinal(address: string, finding: AddressFinding): void {
    this.#deferred.delete(address);
    this.#findings.set(address, finding);
    if (this.#catchAll === null) this.#waitingForCatchAll.push(address);
    else if (this.#catchAll.value !== true) this.#onFinding(address, finding);
  }

  #settleCatchAll(verdict: CatchAllVerdict): void {
    this.#catchAll = verdict;
    this.#catchAllDeferred = null;
    const waiting = this.#waitingForCatchAll;
    this.#waitingForCatchAll = [];
    if (verdict.value === true) return;
    for (const address of waiting) {
      const finding = this.#findings.get(address);
      if (finding) this.#onFinding(address, finding);
    }
  }

  /** No session can be had (or too many in a row were fruitless): what is left stays unanswered. */
  #giveUp(work: string[], reason: string, host: string | null): void {
    if (this.#needsCatchAllCheck()) this.#settleCatchAll({ value: null, reason, host });
    for (const address of work.splice(0)) this.#recordFinal(address, { kind: 'failure', reason, host });
  }

  /** After the last attempt: still-deferred addresses keep their last 4xx. */
  #settleLeftovers(pending: readonly string[]): void {
    if (this.#catchAll === null) {
      const deferred = this.#catchAllDeferred;
      this.#settleCatchAll(
        deferred
          ? {
              value: null,
              reason: `${formatReply(deferred.reply)} (still deferred after ${this.#ctx.greylistAttempts} attempts)`,
              host: deferred.host,
            }
          : { value: null, reason: 'catch-all check not answered', host: null },
      );
    }
    if (this.#catchAll?.value === true) return;
    for (const address of pending) {
      if (this.#findings.has(address)) continue;
      const deferred = this.#deferred.get(address);
      this.#recordFinal(
        address,
        deferred
          ? {
              kind: 'reply',
              reply: deferred.reply,
              class: 'temporary',
              host: deferred.host,
              attempts: this.#attempts.get(address) ?? 0,
            }
          : { kind: 'failure', reason: 'not answered', host: null },
      );
    }
  }

  async #openSession(): Promise<Opened> {
    while (this.#hostIndex < this.#hosts.length) {
      const host = this.#hosts[this.#hostIndex]?.host ?? '';
      const opened = await this.#openOnHost(host);
      if (opened.ok) {
        this.#lastHost = host;
        return opened;
      }
      this.#hostFailures.push(opened.reason);
      this.#hostIndex += 1;
    }
    return { ok: false, reason: this.#hostFailures.join('; ') || `no MX host for ${this.#domain}` };
  }

  async #openOnHost(host: string): Promise<Opened> {
    let lookup = this.#hostLookups.get(host);
    if (!lookup) {
      lookup = await this.#ctx.resolveHost(host);
      this.#hostLookups.set(host, lookup);
    }
    if (lookup.kind === 'none') return { ok: false, reason: `${host} has no A or AAAA record` };
    if (lookup.kind === 'dns-error') return { ok: false, reason: lookup.reason };
    let reason = `${host} has no address`;
    for (const ip of lookup.addresses) {
      const release = await this.#ctx.limits.acquire(host, this.#ctx.signal);
      try {
        return { ok: true, session: await this.#connect(host, ip), release };
      } catch (error) {
        release();
        if (!(error instanceof SmtpConnectionError)) throw error;
        reason = error.message;
      }
    }
    return { ok: false, reason };
  }

  async #connect(host: string, ip: string): Promise<SmtpSession> {
    const startTls = !this.#withoutTls.has(host);
    const options = {
      host,
      ip,
      port: this.#ctx.port,
      helo: this.#ctx.helo,
      timeoutMs: this.#ctx.timeoutMs,
      startTls,
      signal: this.#ctx.signal,
    };
    try {
      return await SmtpSession.open(options);
    } catch (error) {
      if (!(error instanceof SmtpTlsError) || !startTls) throw error;
      // A broken TLS stack should not cost the answer: this host is asked in plain text from now on.
      this.#withoutTls.add(host);
      return SmtpSession.open({ ...options, startTls: false });
    }
  }
}
