import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failureReason } from '../../workflows/job-lifecycle.ts';

/** What a workflow sees when an activity's retries are spent: the activity's error, as converted by the SDK. */
const spent = (type: string, message: string) =>
  new ActivityFailure('Activity task failed', 'probeDomainSlice', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', ApplicationFailure.create({ type, message }));

describe('the reason a failed job shows', () => {
  it('names the provider and keeps its words when the provider is why', () => {
    expect(failureReason('search provider', spent('ProviderAuthError', 'serper rejected the API key'))).toBe(
      'The search provider cannot be used: serper rejected the API key',
    );
    expect(failureReason('verification provider', spent('ProviderUnavailableError', 'zerobounce answered 503'))).toBe(
      'The verification provider kept failing: zerobounce answered 503',
    );
    expect(failureReason('enrichment provider', spent('SecretDecryptionError', 'unable to authenticate data'))).toBe(
      'A stored provider key could not be decrypted: set it again in the enrichment provider settings',
    );
  });

  it('never shows the text of an internal error', () => {
    for (const [type, message] of [
      ['TypeError', "Cannot read properties of undefined (reading 'id')"],
      ['Error', 'connect ECONNREFUSED 10.0.0.7:5432 password=hunter2'],
      ['DriverException', 'relation "verification_result" does not exist'],
    ]) {
      const reason = failureReason('search provider', spent(type!, message!));
      expect(reason).toBe('The job stopped after repeated internal errors');
      expect(reason).not.toContain(message!);
    }
  });
});
