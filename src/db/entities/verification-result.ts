import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EMAIL_RESULTS } from '../../domain/lead.ts';
import type { TranscriptLine } from '../../domain/smtp-transcript.ts';
import { MX_PROVIDERS } from '../../domain/mx-provider.ts';
import type { CatchAllReason, MailboxSignal } from '../../domain/catch-all.ts';
import { RESULT_SOURCES } from '../../domain/verification.ts';
import { idProperty } from './common.ts';
import { VerificationJob } from './verification-job.ts';

export const API_STATUSES = ['pending', 'done'] as const;

export interface StoredAttempt {
  at: string;
  sessionId: string;
  lines: TranscriptLine[];
}

/**
 * One distinct address of a job. `smtpResult` is what the SMTP stage (or its pre-checks) concluded;
 * `result`, `source`, `reason` and `checkedAt` are the final verdict (the provider's when one was
 * bought). `apiStatus` marks the addresses chosen for the provider and whether they were sent.
 */
export const VerificationResult = defineEntity({
  name: 'VerificationResult',
  uniques: [{ properties: ['job', 'email'] }],
  indexes: [
    { properties: ['job', 'domain', 'id'] },
    // The estimate's score bands and the score-bounded fill read a job's Catch-All results only.
    {
      name: 'verification_result_catch_all_score_index',
      expression: `create index "verification_result_catch_all_score_index" on "verification_result" ("job_id", "catch_all_score") where "result" = 'Catch-All'`,
    },
  ],
  triggers: [
    // Live progress: one notification per statement and job (a row trigger ran once per result of a batch for a
    // notification PostgreSQL delivers once per commit anyway); the function is in the migration that made it.
    {
      name: 'verification_result_notify',
      timing: 'after',
      events: ['update'],
      forEach: 'statement',
      expression: `create trigger "verification_result_notify" after update on "verification_result" referencing new table as new_rows for each statement execute function "verification_result_notify_fn"()`,
    },
    // The domains' running counts (see VerificationDomain); the function is in the migration that made it.
    {
      name: 'verification_result_counts',
      timing: 'after',
      events: ['update'],
      forEach: 'statement',
      expression: `create trigger "verification_result_counts" after update on "verification_result" referencing old table as old_rows new table as new_rows for each statement execute function "verification_result_counts_fn"()`,
    },
  ],
  properties: {
    id: idProperty(),
    job: () => p.manyToOne(VerificationJob).deleteRule('cascade'),
    /** Lower-cased, as the leads hold it otherwise (domain in ASCII). */
    email: p.string().length(254),
    /** ASCII domain, '' when the address has none. */
    domain: p.string().length(253),
    smtpResult: p.enum(EMAIL_RESULTS).nullable(),
    smtpCheckedAt: p.datetime().nullable(),
    apiStatus: p.enum(API_STATUSES).nullable(),
    result: p.enum(EMAIL_RESULTS).nullable(),
    source: p.enum(RESULT_SOURCES).nullable(),
    reason: p.text().nullable(),
    mxHost: p.string().length(253).nullable(),
    mxProvider: p.enum(MX_PROVIDERS).nullable(),
    /** Who hosts the mailboxes (CONTRACT §12): the MX provider, or what DNS shows behind a gateway. */
    mailboxProvider: p.enum(MX_PROVIDERS).nullable(),
    mailboxProviderSignals: p.json<MailboxSignal[]>().default('[]'),
    /** Set on Catch-All results once assessed (0–10) with the signals behind it; null otherwise. */
    catchAllScore: p.integer().nullable(),
    catchAllReasons: p.json<CatchAllReason[]>().default('[]'),
    /** The Microsoft directory's `IfExistsResult` when it decided the address. */
    directoryResult: p.integer().nullable(),
    /** The reply that decided the address (CONTRACT §10): its code, its RFC 3463 code, and the SMTP attempts made. */
    smtpCode: p.integer().nullable(),
    enhancedCode: p.string().length(16).nullable(),
    attempts: p.integer().default(0),
    /** Set while the address waits for a later greylisting retry (smtpCheckedAt still null): first 4xx time. */
    deferredSince: p.datetime().nullable(),
    /** SMTP attempts answered with a 4xx so far, and the last such reply. */
    deferredAttempts: p.integer().nullable(),
    deferredReply: p.text().nullable(),
    /**
     * One entry per SMTP attempt (CONTRACT §10): the session it was made in (`verification_smtp_session`,
     * whose opening lines are shared by every address of the session) and this address's own lines.
     */
    transcript: p.json<StoredAttempt[]>().default('[]'),
    checkedAt: p.datetime().nullable(),
  },
});
export type IVerificationResult = InferEntity<typeof VerificationResult>;
