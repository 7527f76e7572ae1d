import { z } from '@hono/zod-openapi';
import type { CheckRecord } from '../../single-check/messages.ts';
import { EMAIL_RESULTS } from '../../domain/lead.ts';
import { MX_PROVIDERS, providerOfHost } from '../../domain/mx-provider.ts';
import { Timestamp } from '../../domain/time.ts';
import { EvidenceFields } from './verification.ts';

export const VerifyInputSchema = z
  .object({
    email: z.string().trim().min(1).max(254).openapi({ example: 'jane@acme.com' }),
    timeoutMs: z.number().int().min(1000).max(30_000).default(10_000).openapi({ example: 10_000 }),
  })
  .strict()
  .openapi('VerifyInput');

export const VerifyResultSchema = z
  .object({
    email: z.string(),
    result: z.enum(EMAIL_RESULTS),
    reason: z.string().nullable(),
    domain: z.string(),
    mxHost: z.string().nullable(),
    mxProvider: z.enum(MX_PROVIDERS).nullable().openapi({ description: 'Mail provider behind the MX host (`other` when not a known one); null when no SMTP was attempted' }),
    isCatchAll: z.boolean().nullable(),
    ...EvidenceFields,
    checkedAt: Timestamp,
    cached: z.boolean().openapi({ description: "true when the address's own result came from an earlier check by this organization" }),
    retryAfterSeconds: z.number().int().positive().nullable().openapi({ description: 'Set when a later call may give a different answer' }),
  })
  .openapi('VerifyResult');

/**
 * Greylisting windows are typically one to a few minutes; asking again sooner would meet the same 4xx.
 * Every Unknown may improve later, so every Unknown carries it.
 */
export const UNKNOWN_RETRY_AFTER_SECONDS = 60;

export function toVerifyDto(check: CheckRecord, cached: boolean): z.infer<typeof VerifyResultSchema> {
  return {
    email: check.email,
    result: check.result,
    reason: check.reason,
    domain: check.domain,
    mxHost: check.mxHost,
    mxProvider: check.mxHost ? providerOfHost(check.mxHost) : null,
    isCatchAll: check.isCatchAll,
    smtpCode: check.smtpCode,
    enhancedCode: check.enhancedCode,
    attempts: check.attempts,
    checkedAt: new Date(check.checkedAt).toISOString(),
    cached,
    retryAfterSeconds: check.result === 'Unknown' ? UNKNOWN_RETRY_AFTER_SECONDS : null,
  };
}
