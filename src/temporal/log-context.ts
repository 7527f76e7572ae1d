import { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { withLogContext } from '../log.ts';

/**
 * Every log line an activity writes carries its workflow and, when its input names them, the job and the
 * organization: activities take `{ jobId, organizationId, ... }` objects by convention.
 */
export class ActivityLogContext implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { info } = Context.current();
    const first = (input.args[0] ?? {}) as { jobId?: unknown; organizationId?: unknown };
    const fields: Record<string, unknown> = { workflowId: info.workflowExecution?.workflowId, activity: info.activityType };
    if (typeof first.jobId === 'string') fields.jobId = first.jobId;
    if (typeof first.organizationId === 'string') fields.organizationId = first.organizationId;
    return withLogContext(fields, () => next(input));
  }
}
