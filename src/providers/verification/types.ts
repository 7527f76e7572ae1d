export type EmailResult = 'Valid' | 'Invalid' | 'Catch-All' | 'Unknown';

export interface VerificationVerdict {
  /** The address exactly as it was passed to `verify`. */
  email: string;
  result: EmailResult;
  /** The provider's own status, `status/sub_status` when it has one (kept as the result's reason). */
  reason: string;
}

export type VerificationProviderName = 'zerobounce' | 'reacher';

export interface EmailVerificationProvider {
  readonly name: VerificationProviderName;
  /** Largest number of addresses worth passing to one `verify` call (one provider request for ZeroBounce). */
  readonly maxBatch: number;
  /** One verdict per input address, in input order. Throws a ProviderError when the call as a whole fails. */
  verify(emails: string[]): Promise<VerificationVerdict[]>;
}
