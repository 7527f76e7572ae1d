import { z } from '@hono/zod-openapi';
import { MX_PROVIDERS } from '../../domain/mx-provider.ts';
import { CATCH_ALL_MAX_SCORE, CATCH_ALL_REASONS, MAILBOX_SIGNALS } from '../../domain/catch-all.ts';
import { EMAIL_RESULTS, type EmailResult } from '../../domain/lead.ts';
import {
  costEstimate,
  DECISIONS,
  RESULT_SOURCES,
  takesCatchAllBound,
  VERIFICATION_METHODS,
  VERIFICATION_STAGES,
} from '../../domain/verification.ts';
import { iso, Timestamp } from '../../domain/time.ts';
import { PageQuerySchema } from './common.ts';
import {
  type CatchAllBand,
  count,
  type DomainStat,
  DomainStatSchema,
  dollars,
  type ResultRow,
  toJobDto,
  VerificationJobSchema,
  type VerificationJobView,
} from '../../verification/views.ts';

/** The evidence behind a verdict (CONTRACT §10), alike on a job's results and a single check. */
export const EvidenceFields = {
  smtpCode: z.number().int().nullable().openapi({ description: 'Code of the reply that decided the address (its RCPT reply, or the reply that ended the attempt)' }),
  enhancedCode: z.string().nullable().openapi({ description: "That reply's RFC 3463 code, e.g. `5.1.1`", example: '5.1.1' }),
  attempts: z.number().int().openapi({ description: 'SMTP attempts made for the address; 0 when none' }),
};

export const VerificationJobInputSchema = z
  .object({
    listId: z.uuid(),
    verificationMethod: z.enum(VERIFICATION_METHODS),
  })
  .strict()
  .openapi('VerificationJobInput');

export const VerificationProgressSchema = z
  .object({
    job: VerificationJobSchema.pick({
      id: true,
      verificationStage: true,
      processedEmails: true,
      totalEmails: true,
      coveragePercentage: true,
    }),
    domainStats: z.array(DomainStatSchema),
  })
  .openapi('VerificationProgress');

export const CostEstimateSchema = z
  .object({
    jobId: z.uuid(),
    unknownCount: count,
    catchAllCount: count,
    totalGapCount: count,
    costPerEmail: dollars,
    fillUnknownsCost: dollars,
    fillCatchAllCost: dollars,
    fillAllGapsCost: dollars,
    currentCoveragePercentage: z.number(),
    projectedCoveragePercentage: z.number(),
    catchAllByScore: z
      .array(z.object({ score: z.number().int().min(0).max(CATCH_ALL_MAX_SCORE), count }))
      .openapi({ description: "The job's Catch-All results by score, 0 to 10 (11 entries); one not scored yet counts in none" }),
  })
  .openapi('VerificationCostEstimate');

export const DecisionInputSchema = z
  .object({
    decision: z.enum(DECISIONS),
    catchAllMaxScore: z
      .number()
      .int()
      .min(0)
      .max(CATCH_ALL_MAX_SCORE)
      .optional()
      .openapi({
        description:
          'With `fill_catchall_only` or `fill_all_gaps` only: just the Catch-All results scored at or below it go to the provider (and are charged); the others stay Catch-All.',
      }),
  })
  .strict()
  .refine((input) => input.catchAllMaxScore === undefined || takesCatchAllBound(input.decision), {
    path: ['catchAllMaxScore'],
    message: 'catchAllMaxScore is only taken with fill_catchall_only or fill_all_gaps',
  })
  .openapi('VerificationDecisionInput');

export const DecisionResultSchema = z
  .object({
    id: z.uuid(),
    verificationStage: z.enum(VERIFICATION_STAGES),
    userDecision: z.enum(DECISIONS),
    decisionMadeAt: Timestamp,
  })
  .openapi('VerificationDecision');

export const JobListQuerySchema = PageQuerySchema.extend({
  listId: z.uuid().optional(),
  verificationStage: z.enum(VERIFICATION_STAGES).optional(),
});

const scoreBound = (bound: string) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(CATCH_ALL_MAX_SCORE)
    .optional()
    .openapi({ description: `Only Catch-All results whose catchAllScore is ${bound}` });

const boundsInOrder: [(f: { minScore?: number; maxScore?: number }) => boolean, { message: string; path: string[] }] = [
  (f) => f.minScore === undefined || f.maxScore === undefined || f.minScore <= f.maxScore,
  { message: 'minScore must not be above maxScore', path: ['minScore'] },
];
const scoreBounds = { minScore: scoreBound('at least this'), maxScore: scoreBound('at most this') };

export const ResultsQuerySchema = PageQuerySchema.extend({ result: z.enum(EMAIL_RESULTS).optional(), ...scoreBounds }).refine(...boundsInOrder);

/** The download's segments: result types as a comma list (`Valid,Catch-All`), and the lead's columns on request. */
export const ResultsDownloadQuerySchema = z
  .object({
  result: z
    .string()
    .transform((list, ctx) => {
      const results = [...new Set(list.split(',').map((r) => r.trim()))];
      const unknown = results.filter((r) => !(EMAIL_RESULTS as readonly string[]).includes(r));
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `unknown result ${unknown.join(', ')}; expected a comma list of ${EMAIL_RESULTS.join(', ')}` });
      return results as EmailResult[];
    })
    .optional()
    .openapi({ description: 'Result types to keep, as a comma list', example: 'Valid,Catch-All' }),
  columns: z
    .enum(['lead'])
    .optional()
    .openapi({ description: '`lead` appends `first_name,last_name,company,title,network_url,phone` of the (first) lead holding the address' }),
  ...scoreBounds,
  })
  .refine(...boundsInOrder);

export const VerificationResultSchema = z
  .object({
    email: z.string(),
    result: z
      .enum(EMAIL_RESULTS)
      .nullable()
      .openapi({ description: 'null while the address waits for its check' }),
    source: z.enum(RESULT_SOURCES).nullable(),
    reason: z.string().nullable(),
    domain: z.string(),
    mxHost: z.string().nullable(),
    mxProvider: z
      .enum(MX_PROVIDERS)
      .nullable()
      .openapi({
        description: 'mail provider recognised from the MX host name; null when no SMTP was attempted',
      }),
    mailboxProvider: z.enum(MX_PROVIDERS).nullable().openapi({
      description:
        'who hosts the mailboxes: mxProvider, or Microsoft 365 / Google Workspace when DNS shows it behind a gateway; null when no SMTP was attempted',
    }),
    mailboxProviderSignals: z
      .array(z.enum(MAILBOX_SIGNALS))
      .openapi({ description: 'what showed mailboxProvider: the MX name, an SPF include, an autodiscover CNAME, the EOP host' }),
    catchAllScore: z.number().int().min(0).max(CATCH_ALL_MAX_SCORE).nullable().openapi({
      description: 'Catch-All results only: 0 (most likely to bounce) to 10 (most likely deliverable); null on every other result',
    }),
    catchAllReasons: z
      .array(z.enum(CATCH_ALL_REASONS))
      .openapi({ description: 'the signals behind catchAllScore (README: the catch-all model); empty on every other result' }),
    directory: z
      .object({ ifExistsResult: z.number().int() })
      .nullable()
      .openapi({ description: "the Microsoft directory's answer when it decided the address (source `directory`)" }),
    ...EvidenceFields,
    checkedAt: Timestamp.nullable(),
  })
  .openapi('VerificationResult');

export const ResultParams = z.object({
  jobId: z.uuid().openapi({ param: { name: 'jobId', in: 'path' } }),
  email: z
    .string()
    .min(1)
    .max(254)
    .openapi({ param: { name: 'email', in: 'path' }, description: 'The address, URL-encoded; matched case-insensitively', example: 'jane%2Bsales%40acme.test' }),
});

const TranscriptLineSchema = z.object({
  dir: z.enum(['C', 'S']).openapi({ description: '`C` sent by the verifier, `S` received from the server' }),
  text: z.string().openapi({ description: 'The line as on the wire (inside TLS once started), without CRLF' }),
});

export const VerificationResultTranscriptSchema = VerificationResultSchema.extend({
  transcript: z
    .array(
      z.object({
        at: Timestamp.openapi({ description: 'When the attempt was made' }),
        mxHost: z.string(),
        ip: z.string(),
        lines: z.array(TranscriptLineSchema).openapi({
          description:
            "The session's opening (greeting, EHLO, STARTTLS, EHLO again), then this address's MAIL FROM and RCPT TO with their replies; lines seen so far when the attempt broke off. Never a DATA.",
        }),
      }),
    )
    .openapi({ description: 'One entry per SMTP attempt, oldest first; empty when no SMTP was attempted' }),
}).openapi('VerificationResultTranscript');

export const toProgressDto = (
  view: VerificationJobView,
  domainStats: DomainStat[],
): z.infer<typeof VerificationProgressSchema> => {
  const job = toJobDto(view);
  return {
    job: {
      id: job.id,
      verificationStage: job.verificationStage,
      processedEmails: job.processedEmails,
      totalEmails: job.totalEmails,
      coveragePercentage: job.coveragePercentage,
    },
    domainStats,
  };
};

export const toEstimateDto = (view: VerificationJobView, catchAllByScore: CatchAllBand[]): z.infer<typeof CostEstimateSchema> => ({
  jobId: view.job.id,
  ...costEstimate(view.counts.final, view.job.totalEmails),
  catchAllByScore,
});

export const toResultDto = (r: ResultRow): z.infer<typeof VerificationResultSchema> => ({
  email: r.email,
  result: r.result,
  source: r.source,
  reason: r.reason,
  domain: r.domain,
  mxHost: r.mxHost,
  mxProvider: r.mxProvider,
  mailboxProvider: r.mailboxProvider,
  mailboxProviderSignals: r.mailboxProviderSignals,
  catchAllScore: r.catchAllScore,
  catchAllReasons: r.catchAllReasons,
  directory: r.directory,
  smtpCode: r.smtpCode,
  enhancedCode: r.enhancedCode,
  attempts: r.attempts,
  checkedAt: iso(r.checkedAt),
});
