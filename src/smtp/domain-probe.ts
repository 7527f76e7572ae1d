import { createHash, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReplyClass, SmtpReply } from '../domain/smtp-reply.ts';
import { formatReply } from '../domain/smtp-reply.ts';
import type { AttemptTranscript } from '../domain/smtp-transcript.ts';
import type { MxHost } from './dns.ts';
import type { HostChannel, RcptAnswer } from './host-channel.ts';

export interface DomainProbeContext {
  greylistDelayMs: number;
  greylistAttempts: number;
  /** The shared channel of an MX host (one per host name, all domains and jobs together). */
  channel: (host: string) => HostChannel;
  /** Whose work this is (a job): connection slots are shared round-robin between owners. */
  owner: string;
  /**
   * Makes the catch-all address a function of this seed and the domain, so a later attempt (a
   * greylisting retry minutes on) asks for the same one; random per probe when absent.
   */
  catchAllSeed?: string;
  /**
   * The email finder's way (CONTRACT §14): the addresses are candidates for one mailbox, asked one after the other
   * in their order in one transaction, and none is asked after the first accepted.
   */
  inTurn?: boolean;
  /** The domain is known not to accept every address (a cached verdict): no catch-all check is asked. */
  knownNotCatchAll?: boolean;
  signal?: AbortSignal;
}

/** What the servers said about one address: a reply to its RCPT, or why none could be had; and every attempt's transcript. */
export type AddressFinding = (
  | { kind: 'reply'; reply: SmtpReply; class: ReplyClass; host: string; attempts: number }
  /** `reply`: the one that ended the attempt, when one did (a refusal of our egress: CONTRACT §13). */
  | { kind: 'failure'; reason: string; host: string | null; reply?: SmtpReply }
) & { transcript?: AttemptTranscript[] };

export interface CatchAllVerdict {
  value: boolean | null;
  /** Reply to the random address, or why it has none. */
  reason: string;
  host: string | null;
  /** That reply and the attempt that got it, when the random address was answered: the evidence of the verdict. */
  reply?: SmtpReply;
  attempt?: AttemptTranscript;
}

export interface DomainProbeResult {
  catchAll: CatchAllVerdict;
  /** Final finding per address answered before the catch-all verdict; moot when it is true. */
  findings: Map<string, AddressFinding>;
  /** Host that answered last, null when none could be reached. */
  lastHost: string | null;
}

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

/** 24 lowercase letters derived from a seed (as unguessable as the seed). */
function seededLocalPart(seed: string, domain: string): string {
  const digest = createHash('sha256').update(`${seed}\0${domain}`).digest();
  let local = '';
  for (let i = 0; i < 24; i += 1) local += String.fromCharCode(97 + ((digest[i] ?? 0) % 26));
  return local;
}

/**
 * Probes every address of one domain through the channels of its MX hosts, which carry the
 * addresses of every domain a host serves in the same sessions:
 * - the catch-all check (a random address, asked before any real address of its transaction) is asked with the
 *   addresses; once it is accepted, the domain's addresses still waiting are withdrawn;
 * - addresses answered with a 4xx are asked again after `greylistDelayMs`, `greylistAttempts`
 *   times in all;
 * - MX hosts are used in preference order, per domain: a host that cannot be reached sends this
 *   domain's addresses to its next MX.
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
  #lastHost: string | null = null;
  /** Why the last address moved off an egress: the reason of those left with no egress. */
  #movedReason: string | null = null;
  #movedReply: SmtpReply | null = null;

  // One random address per probe, reused across attempts: greylisting remembers addresses.
  readonly #catchAllAddress: string;
  #catchAll: CatchAllVerdict | null = null;
  #catchAllDeferred: { reply: SmtpReply; host: string } | null = null;

  readonly #findings = new Map<string, AddressFinding>();
  readonly #deferred = new Map<string, { reply: SmtpReply; host: string }>();
  readonly #attempts = new Map<string, number>();
  readonly #transcripts = new Map<string, AttemptTranscript[]>();
  #waitingForCatchAll: string[] = [];
  /** Addresses some channel answered (in turn, the ones after the first accepted never are). */
  readonly #asked = new Set<string>();

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
    const local = ctx.catchAllSeed === undefined ? randomLocalPart() : seededLocalPart(ctx.catchAllSeed, domain);
    this.#catchAllAddress = `${local}@${domain}`;
    if (ctx.knownNotCatchAll) this.#catchAll = { value: false, reason: 'known not to accept every address', host: null };
  }

  async run(addresses: readonly string[]): Promise<DomainProbeResult> {
    let pending = [...addresses];
    for (let attempt = 1; attempt <= this.#ctx.greylistAttempts; attempt += 1) {
      await this.#round(pending);
      if (this.#catchAll?.value === true) break;
      if (this.#ctx.inTurn && this.#anyAccepted()) return this.#result([]);
      pending = pending.filter((address) => !this.#findings.has(address));
      if (pending.length === 0 && this.#catchAll !== null) break;
      if (attempt < this.#ctx.greylistAttempts) await pause(this.#ctx.greylistDelayMs, this.#ctx.signal);
    }
    return this.#result(pending);
  }

  #result(pending: readonly string[]): DomainProbeResult {
    this.#settleLeftovers(pending);
    return {
      catchAll: this.#catchAll ?? { value: null, reason: 'catch-all check not run', host: null },
      findings: this.#findings,
      lastHost: this.#lastHost,
    };
  }

  #anyAccepted(): boolean {
    for (const finding of this.#findings.values()) if (finding.kind === 'reply' && finding.class === 'accepted') return true;
    return false;
  }

  /** One pass over `addresses` (and the catch-all check while undecided), host by host until one answers. */
  async #round(addresses: readonly string[]): Promise<void> {
    let work = [...addresses];
    let askCatchAll = this.#catchAll === null;
    const { owner, signal } = this.#ctx;
    // Channels (egresses) a host refused in this round: with no other left, the addresses stay unanswered.
    const refused = new Set<HostChannel>();
    while ((work.length > 0 || askCatchAll) && this.#hostIndex < this.#hosts.length) {
      const host = this.#hosts[this.#hostIndex]?.host ?? '';
      const channel = this.#ctx.channel(host);
      if (refused.has(channel)) {
        this.#noEgressLeft(work, askCatchAll, host);
        return;
      }
      const unreached: string[] = [];
      const moved: string[] = [];
      let catchAllUnreached = false;
      let catchAllMoved = false;
      let unusableReason = '';
      const asks: Promise<void>[] = [];
      if (askCatchAll) {
        asks.push(
          channel
            .ask(this.#catchAllAddress, { owner, probe: true, ...(signal ? { signal } : {}) })
            .then((answer) => {
              if (answer.kind === 'unusable') {
                catchAllUnreached = true;
                unusableReason = answer.reason;
                return;
              }
              if (answer.kind === 'moved') {
                catchAllMoved = true;
                this.#movedReason = answer.reason;
                this.#movedReply = answer.reply ?? this.#movedReply;
                return;
              }
              this.#onCatchAllAnswer(answer);
              if (this.#catchAll?.value === true) channel.withdraw(new Set(work), owner);
            }),
        );
      }
      const take = (address: string, answer: RcptAnswer): void => {
        this.#asked.add(address);
        if (answer.attempt) this.#transcriptOf(address).push(answer.attempt);
        if (answer.kind === 'unusable') {
          unreached.push(address);
          unusableReason = answer.reason;
        } else if (answer.kind === 'moved') {
          moved.push(address);
          this.#movedReason = answer.reason;
          this.#movedReply = answer.reply ?? this.#movedReply;
        } else this.#onAnswer(address, answer);
      };
      if (this.#ctx.inTurn && work.length > 0) {
        const candidates = work;
        const goOn = (answer: RcptAnswer) => answer.kind === 'reply' && answer.klass !== 'accepted';
        asks.push(
          channel.askInTurn(candidates, { owner, goOn, ...(signal ? { signal } : {}) }).then((answers) => {
            answers.forEach((answer, i) => take(candidates[i]!, answer));
            // The candidates never asked follow the last one where it goes: to another egress or the next MX.
            const last = answers.at(-1);
            const after = candidates.slice(answers.length);
            if (last?.kind === 'unusable') unreached.push(...after);
            else if (last?.kind === 'moved') moved.push(...after);
          }),
        );
      } else {
        for (const address of work) asks.push(channel.ask(address, { owner, ...(signal ? { signal } : {}) }).then((answer) => take(address, answer)));
      }
      await Promise.all(asks);
      if (this.#catchAll?.value === true) return;
      if (moved.length > 0 || catchAllMoved) {
        // The same host again, through the egress the prober picks now (a refused one is quarantined).
        refused.add(channel);
        work = [...moved, ...unreached];
        askCatchAll = catchAllMoved || catchAllUnreached;
        continue;
      }
      if (unreached.length === 0 && !catchAllUnreached) return;
      this.#hostFailures.push(unusableReason);
      this.#hostIndex += 1;
      work = unreached;
      askCatchAll = catchAllUnreached;
    }
    if (work.length > 0 || askCatchAll) {
      const reason = this.#hostFailures.join('; ') || `no MX host for ${this.#domain}`;
      if (askCatchAll) this.#settleCatchAll({ value: null, reason, host: null });
      for (const address of work) this.#recordFinal(address, { kind: 'failure', reason, host: null });
    }
  }

  /** Every egress was refused by `host`'s provider (CONTRACT §13): Unknown, never a verdict about the mailbox. */
  #noEgressLeft(work: readonly string[], askCatchAll: boolean, host: string): void {
    const reason = this.#movedReason ?? `${host} refused every egress`;
    if (askCatchAll) this.#settleCatchAll({ value: null, reason, host });
    const reply = this.#movedReply ? { reply: this.#movedReply } : {};
    for (const address of work) this.#recordFinal(address, { kind: 'failure', reason, host, ...reply });
  }

  #transcriptOf(address: string): AttemptTranscript[] {
    let transcript = this.#transcripts.get(address);
    if (!transcript) this.#transcripts.set(address, (transcript = []));
    return transcript;
  }

  #onCatchAllAnswer(answer: Exclude<RcptAnswer, { kind: 'unusable' | 'moved' }>): void {
    if (this.#catchAll !== null) return;
    const { host } = answer;
    this.#lastHost = host;
    if (answer.kind === 'failure') {
      this.#settleCatchAll({ value: null, reason: answer.reason, host });
      return;
    }
    const { reply, klass, stage } = answer;
    if (klass === 'temporary') {
      this.#catchAllDeferred = { reply, host };
      return;
    }
    if (stage === 'MAIL') {
      this.#settleCatchAll({ value: null, reason: `sender refused by ${host}: ${formatReply(reply)}`, host });
      return;
    }
    this.#settleCatchAll({
      value: klass === 'accepted' ? true : klass === 'mailbox-unknown' ? false : null,
      reason: formatReply(reply),
      host,
      reply,
      ...(answer.attempt ? { attempt: answer.attempt } : {}),
    });
  }

  #onAnswer(address: string, answer: Exclude<RcptAnswer, { kind: 'unusable' | 'moved' }>): void {
    if (answer.kind === 'failure') {
      if (answer.reason === 'withdrawn') return;
      this.#recordFinal(address, { kind: 'failure', reason: answer.reason, host: answer.host });
      return;
    }
    this.#lastHost = answer.host;
    if (answer.stage === 'MAIL' && answer.klass !== 'temporary') {
      const reason = `sender refused by ${answer.host}: ${formatReply(answer.reply)}`;
      this.#recordFinal(address, { kind: 'failure', reason, host: answer.host });
      return;
    }
    this.#recordReply(address, answer.reply, answer.klass, answer.host);
  }

  #recordReply(address: string, reply: SmtpReply, klass: ReplyClass, host: string): void {
    const attempts = (this.#attempts.get(address) ?? 0) + 1;
    this.#attempts.set(address, attempts);
    if (klass === 'temporary') this.#deferred.set(address, { reply, host });
    else this.#recordFinal(address, { kind: 'reply', reply, class: klass, host, attempts });
  }

  #recordFinal(address: string, finding: AddressFinding): void {
    this.#deferred.delete(address);
    finding.transcript = this.#transcripts.get(address) ?? [];
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
      // A candidate never asked has no finding: the caller tells it from one that was asked and got nothing.
      if (this.#ctx.inTurn && !this.#asked.has(address)) continue;
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
}
