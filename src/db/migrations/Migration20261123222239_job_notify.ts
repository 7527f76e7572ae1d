import { Migration } from '@mikro-orm/migrations';

/** Live progress (CONTRACT §9.4): committed changes to a verification job or its results notify `job_events`. */
export class Migration20261123222239_job_notify extends Migration {

  override name = 'Migration20261123222239_job_notify';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "verification_job_verification_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'verification:' || new.id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "verification_job_notify" AFTER UPDATE on "verification_job" for each ROW execute function "verification_job_verification_job_notify_fn"();`);

    this.addSql(`create or replace function "verification_result_verification_result_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'verification:' || new.job_id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "verification_result_notify" AFTER UPDATE on "verification_result" for each ROW execute function "verification_result_verification_result_notify_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "verification_job_notify" on "verification_job";`);
    this.addSql(`drop function if exists "verification_job_verification_job_notify_fn"();`);

    this.addSql(`drop trigger if exists "verification_result_notify" on "verification_result";`);
    this.addSql(`drop function if exists "verification_result_verification_result_notify_fn"();`);
  }

}
