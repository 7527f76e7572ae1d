import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { clock, counted } from '../format.ts';
import type { VerificationJob } from '../types.ts';
import { ConfirmButton, ErrorNote, useAction } from '../ui.tsx';

/**
 * Addresses whose mail servers asked to try again later (greylisting): when the next try is due, and a way to stop
 * waiting with them Unknown (CONTRACT §15, `POST …/finish-deferred`). The job's stream shows the stage that follows.
 */
export function DeferredNotice({ job, onFinished }: { job: VerificationJob; onFinished: (job: VerificationJob) => void }) {
  const action = useAction();
  // The request is taken at once; the stage ends a moment later, when the stream shows it.
  const [finishing, setFinishing] = useState(false);
  const n = job.deferredCount;
  const finish = () =>
    void action.run(async () => {
      onFinished(await post<VerificationJob>(`/api/verification/jobs/${job.id}/finish-deferred`));
      setFinishing(true);
    });
  return (
    <div class="notice deferred" role="status" data-testid="deferred">
      <p>
        {counted(n, 'address', 'addresses')} {n === 1 ? 'waits for its mail server' : 'wait for their mail servers'}{' '}
        (greylisting);{' '}
        {job.nextRetryAt ? (
          <>
            next try at <time dateTime={job.nextRetryAt}>{clock(new Date(job.nextRetryAt))}</time>.
          </>
        ) : job.processedEmails + n >= job.totalEmails ? (
          'they are being asked again now.'
        ) : (
          'they are asked again once the other servers are checked.'
        )}
      </p>
      {finishing ? (
        <p>Finishing: they become Unknown in a moment.</p>
      ) : (
        job.verificationStage === 'smtp_verifying' && (
          <ConfirmButton
            label="Finish now — mark them Unknown"
            confirm={`Mark ${counted(n, 'address', 'addresses')} Unknown now`}
            onConfirm={finish}
            disabled={action.busy}
          />
        )
      )}
      <ErrorNote error={action.error} />
    </div>
  );
}
