import { ApiKey } from './api-key.ts';
import { CreditLedgerEntry } from './credit-ledger.ts';
import { EnrichedProfile } from './enriched-profile.ts';
import { EnrichmentJob } from './enrichment-job.ts';
import { EnrichmentProviderSetting } from './enrichment-provider-setting.ts';
import { EnrichmentRequest } from './enrichment-request.ts';
import { Lead } from './lead.ts';
import { List } from './list.ts';
import { LoginFailure } from './login-failure.ts';
import { Organization } from './organization.ts';
import { OrganizationInvite } from './organization-invite.ts';
import { RateLimitBucket } from './rate-limit-bucket.ts';
import { SmtpHostBudget } from './smtp-host-budget.ts';
import { SmtpLease } from './smtp-lease.ts';
import { ScrapeItem } from './scrape-item.ts';
import { ScrapeJob } from './scrape-job.ts';
import { Session } from './session.ts';
import { User } from './user.ts';
import { VerificationDomain } from './verification-domain.ts';
import { VerificationJob } from './verification-job.ts';
import { VerificationResult } from './verification-result.ts';
import { VerificationSmtpSession } from './verification-smtp-session.ts';
import { VerificationSpend } from './verification-spend.ts';
import { IdempotencyKey } from './idempotency-key.ts';
import { VerifyCheck } from './verify-check.ts';
import { VerifyDomainFact } from './verify-domain-fact.ts';
import { WebhookDelivery } from './webhook-delivery.ts';
import { WebhookEndpoint } from './webhook-endpoint.ts';
import { WebhookEvent } from './webhook-event.ts';
import { SendOutcome } from './send-outcome.ts';
import { DomainTemplateShare } from './domain-template-share.ts';
import { DirectoryPacer } from './directory-pacer.ts';
import { DirectoryTenant } from './directory-tenant.ts';
import { EmailFind } from './email-find.ts';

export { ApiKey, CreditLedgerEntry, Lead, List, LoginFailure, Organization, OrganizationInvite, RateLimitBucket, Session, User };
export { VerificationDomain, VerificationJob, VerificationResult, VerificationSmtpSession, VerificationSpend };
export { EnrichedProfile, EnrichmentJob, EnrichmentProviderSetting, EnrichmentRequest };
export { ScrapeItem, ScrapeJob };
export { SmtpHostBudget, SmtpLease };
export { DomainTemplateShare, SendOutcome };
export { DirectoryPacer, DirectoryTenant, EmailFind };
export { IdempotencyKey, VerifyCheck, VerifyDomainFact, WebhookDelivery, WebhookEndpoint, WebhookEvent };

/** Every entity the ORM knows; a feature adds its entities here. */
export const entities = [Organization, User, OrganizationInvite, Session, LoginFailure, List, Lead, CreditLedgerEntry, ApiKey, RateLimitBucket,
  VerificationJob, VerificationResult, VerificationDomain, VerificationSpend, VerificationSmtpSession, ScrapeJob, ScrapeItem,
  EnrichmentProviderSetting, EnrichmentJob, EnrichedProfile, EnrichmentRequest,
  VerifyDomainFact, VerifyCheck, IdempotencyKey, WebhookEndpoint, WebhookEvent, WebhookDelivery, SmtpHostBudget, SmtpLease,
  SendOutcome, DomainTemplateShare,
  DirectoryPacer, DirectoryTenant, EmailFind];
