import { ApiKey } from './api-key.ts';
import { CreditLedgerEntry } from './credit-ledger.ts';
import { Lead } from './lead.ts';
import { List } from './list.ts';
import { LoginFailure } from './login-failure.ts';
import { Organization } from './organization.ts';
import { RateLimitBucket } from './rate-limit-bucket.ts';
import { Session } from './session.ts';
import { User } from './user.ts';
import { VerificationDomain } from './verification-domain.ts';
import { VerificationJob } from './verification-job.ts';
import { VerificationResult } from './verification-result.ts';
import { VerificationSpend } from './verification-spend.ts';

export { ApiKey, CreditLedgerEntry, Lead, List, LoginFailure, Organization, RateLimitBucket, Session, User };
export { VerificationDomain, VerificationJob, VerificationResult, VerificationSpend };

/** Every entity the ORM knows; a feature adds its entities here. */
export const entities = [Organization, User, Session, LoginFailure, List, Lead, CreditLedgerEntry, ApiKey, RateLimitBucket,
  VerificationJob, VerificationResult, VerificationDomain, VerificationSpend];
