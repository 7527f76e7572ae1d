/**
 * The lead half of every statement that makes results final (SMTP batches, settled deferrals,
 * provider batches): the rows its `stored` CTE returns (email, result, checked_at) onto the job's
 * list's leads holding those addresses (`email_key` = lower(email)), in the same statement, so a
 * job is done when its last result is stored and no step at the end grows with the job or the
 * table. `email_key = any(array(…stored))`, an array computed once before the update, bounds the
 * lookups in the (list_id, email_key) index by the batch whatever the planner believes about the
 * tables: no plan can scan the list or the table. Parameter: the job id.
 */
export const WRITE_BATCH_TO_LEADS = `update lead l set email_status = s.result, email_verified_at = s.checked_at, updated_at = clock_timestamp()
       from stored s
       where l.list_id = (select list_id from verification_job where id = ?) and l.email_key = any(array(select email from stored))
         and l.email_key = s.email and s.result is not null
       returning 1`;

