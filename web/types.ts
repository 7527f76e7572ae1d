// The shapes the dashboard reads, as the API's OpenAPI document describes them (only the fields used here).

export interface User {
  id: string;
  email: string;
  name: string | null;
}
export interface Organization {
  id: string;
  name: string;
  creditBalance: number;
}
export interface Me {
  user: User;
  organization: Organization;
}
export interface LeadList {
  id: string;
  name: string;
  description: string | null;
  leadCount: number;
  createdAt: string;
}
export interface Lead {
  id: string;
  firstName: string | null;
  lastName: string | null;
  title: string | null;
  company: string | null;
  companyDomain: string | null;
  email: string | null;
  networkUrl: string | null;
  workEmail: string | null;
  personalEmail: string | null;
  phone: string | null;
  emailStatus: string | null;
  emailVerifiedAt: string | null;
  source: string;
  enrichedAt: string | null;
}
export interface VerificationJob {
  id: string;
  listId: string;
  listName: string;
  verificationStage:
    'pending' | 'smtp_verifying' | 'awaiting_decision' | 'api_verifying' | 'completed' | 'failed';
  verificationMethod: 'smtp_only' | 'smtp_api_fallback' | 'api_only';
  totalEmails: number;
  processedEmails: number;
  deferredCount: number;
  smtpValidCount: number;
  smtpInvalidCount: number;
  smtpCatchAllCount: number;
  smtpUnknownCount: number;
  coveragePercentage: number;
  userDecision: string | null;
  apiVerifiedEmails: number;
  apiCost: number;
  apiValidCount: number;
  apiInvalidCount: number;
  apiCatchAllCount: number;
  apiUnknownCount: number;
  completedAt: string | null;
  failureReason: string | null;
  warnings: Array<{ code: string; message: string }>;
  createdAt: string;
}
export interface DomainStat {
  domain: string;
  totalEmails: number;
  validCount: number;
  invalidCount: number;
  catchAllCount: number;
  unknownCount: number;
  isCatchAll: boolean | null;
}
export interface Estimate {
  unknownCount: number;
  catchAllCount: number;
  totalGapCount: number;
  costPerEmail: number;
  fillUnknownsCost: number;
  fillCatchAllCost: number;
  fillAllGapsCost: number;
  currentCoveragePercentage: number;
  projectedCoveragePercentage: number;
}
export interface VerificationResult {
  email: string;
  result: string;
  source: string | null;
  reason: string | null;
  domain: string;
  mxHost: string | null;
  mxProvider: string | null;
  smtpCode: number | null;
  enhancedCode: string | null;
  attempts: number;
  checkedAt: string | null;
}
export interface Transcript {
  transcript: Array<{
    at: string;
    mxHost: string;
    ip: string;
    lines: Array<{ dir: 'C' | 'S'; text: string }>;
  }>;
}
export interface ScrapeJob {
  id: string;
  name: string;
  status: 'pending' | 'processing' | 'paused' | 'completed' | 'failed';
  inputType: string;
  totalItems: number;
  completedItems: number;
  foundItems: number;
  failureReason: string | null;
  listId: string | null;
  createdAt: string;
}
export interface ScrapeItem {
  id: string;
  rowNumber: number;
  status: string;
  company: string | null;
  role: string | null;
  networkUrl: string | null;
  firstName: string | null;
  lastName: string | null;
  domain: string | null;
  error: string | null;
}
export interface BulkJob {
  jobId: string;
  listId: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  fields: string[];
  totalLeads: number;
  processedLeads: number;
  successCount: number;
  failedCount: number;
  skippedCount: number;
  creditsUsed: number;
  estimatedCredits: number;
  stopReason: string | null;
  failureReason: string | null;
  createdAt: string;
}
