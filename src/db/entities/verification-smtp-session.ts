import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { TranscriptLine } from '../../domain/smtp-transcript.ts';
import { VerificationJob } from './verification-job.ts';

/**
 * The opening lines of one SMTP session (greeting, EHLO, STARTTLS...), stored once per job that used
 * it rather than on every result it answered: `verification_result.transcript` names it by `id`.
 * A session of a host shared by several jobs has one row per job, so a deleted job takes its rows along.
 */
export const VerificationSmtpSession = defineEntity({
  name: 'VerificationSmtpSession',
  properties: {
    job: () => p.manyToOne(VerificationJob).deleteRule('cascade').primary(),
    id: p.uuid().primary(),
    /** When the connection was opened. */
    at: p.datetime(),
    mxHost: p.string().length(253),
    ip: p.string().length(45),
    lines: p.json<TranscriptLine[]>(),
  },
});
export type IVerificationSmtpSession = InferEntity<typeof VerificationSmtpSession>;
