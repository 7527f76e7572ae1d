// The shapes the dashboard reads, as the service declares them: its job views and its routes' schemas (the
// OpenAPI document is made from them). Type-only imports: Vite erases them, so no server code reaches the bundle.
import type { z } from '@hono/zod-openapi';
import type { ApiKeySchema } from '../src/http/schemas/api-key.ts';
import type { Egress as EgressSchema } from '../src/http/schemas/egress.ts';
import type { LedgerEntrySchema } from '../src/http/schemas/credits.ts';
import type { ListSchema } from '../src/http/schemas/list.ts';
import type { ScrapeItemSchema } from '../src/http/schemas/scrape.ts';
import type { ProviderSettingSchema } from '../src/http/schemas/settings.ts';
import type { CalibrationSchema, OutcomeImportResultSchema } from '../src/http/schemas/outcomes.ts';
import type {
  CostEstimateSchema,
  VerificationResultSchema,
  VerificationResultTranscriptSchema,
} from '../src/http/schemas/verification.ts';
import type { WebhookDeliverySchema, WebhookEndpointSchema } from '../src/http/schemas/webhook.ts';
import type { VerifyResultSchema } from '../src/http/schemas/verify.ts';
import type { InviteSchema, MemberSchema, MeSchema } from '../src/http/schemas/account.ts';
import type { MonthUsageSchema } from '../src/http/schemas/usage.ts';
import type { DuplicatesSchema } from '../src/http/schemas/lead.ts';
export type { BulkJobDto as BulkJob } from '../src/enrichment/views.ts';
export type { ScrapeJobDto as ScrapeJob } from '../src/scrape/views.ts';
export type { VerificationJobDto as VerificationJob } from '../src/verification/views.ts';
export type { DomainStat } from '../src/verification/views.ts';
export type Estimate = z.infer<typeof CostEstimateSchema>;
export type Calibration = z.infer<typeof CalibrationSchema>;
export type CalibrationBand = Calibration['bands'][number];
export type OutcomeImport = z.infer<typeof OutcomeImportResultSchema>;
export type { LeadDto as Lead } from '../src/http/schemas/lead.ts';
export type LeadList = z.infer<typeof ListSchema>;
export type ScrapeItem = z.infer<typeof ScrapeItemSchema>;
export type VerificationResult = z.infer<typeof VerificationResultSchema>;
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;
export type ApiKey = z.infer<typeof ApiKeySchema>;
export type ProviderSetting = z.infer<typeof ProviderSettingSchema>;
export type Egress = z.infer<typeof EgressSchema>;
export type Endpoint = z.infer<typeof WebhookEndpointSchema>;
export type Delivery = z.infer<typeof WebhookDeliverySchema>;
export type Transcript = Pick<z.infer<typeof VerificationResultTranscriptSchema>, 'transcript'>;

/** CONTRACT §15: the user who signed the organization up is its `owner`, invited users are `member`s. */
export type Me = z.infer<typeof MeSchema>;
export type User = Me['user'];
/** `GET /api/organization/members`. */
export type Member = z.infer<typeof MemberSchema>;
/** `POST /api/organization/invites`: the token is shown once. */
export type Invite = z.infer<typeof InviteSchema>;
/** `GET /api/usage`: one entry per month. */
export type UsageMonth = z.infer<typeof MonthUsageSchema>;
/** `POST /api/verification/verify` answers as `POST /api/external/verify` (CONTRACT §9.1). */
export type SingleCheck = z.infer<typeof VerifyResultSchema>;
/** `POST /api/enrichment/find-email` (CONTRACT §14): the find (a 202 answers `{ findId }` instead). */
export type { FindAnswer as FoundEmail } from '../src/domain/find-answer.ts';
/** CONTRACT §15: what adding or importing leads skipped (or filled) as already in the list. */
export type Duplicates = z.infer<typeof DuplicatesSchema>;
