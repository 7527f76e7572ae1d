import { Migration } from '@mikro-orm/migrations';

/**
 * Live progress's notification from a batch of results: once per statement and job, not once per row. The row
 * trigger queued an after-trigger event and ran its function for each of a batch's 250 rows, to send a
 * notification PostgreSQL delivers once per transaction anyway.
 */
export class Migration20261128170000_result_notify_statement extends Migration {

  override name = 'Migration20261128170000_result_notify_statement';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "verification_result_notify" on "verification_result";`);
    this.addSql(`drop function if exists "verification_result_verification_result_notify_fn"();`);
    this.addSql(`create or replace function "verification_result_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'verification:' || j.job_id) from (select distinct job_id from new_rows) j; return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "verification_result_notify" after update on "verification_result" referencing new table as new_rows for each statement execute function "verification_result_notify_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "verification_result_notify" on "verification_result";`);
    this.addSql(`drop function if exists "verification_result_notify_fn"();`);
    this.addSql(`create or replace function "verification_result_verification_result_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'verification:' || new.job_id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "verification_result_notify" AFTER UPDATE on "verification_result" for each ROW execute function "verification_result_verification_result_notify_fn"();`);
  }

}
