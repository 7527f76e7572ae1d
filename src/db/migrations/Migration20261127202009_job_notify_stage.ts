import { Migration } from '@mikro-orm/migrations';

/** A job row's notification names the stage (or status) it leaves the job in: `verification:<id>:<stage>`. */
export class Migration20261127202009_job_notify_stage extends Migration {

  override name = 'Migration20261127202009_job_notify_stage';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "enrichment_job_notify" on "enrichment_job";`);
    this.addSql(`drop function if exists "enrichment_job_enrichment_job_notify_fn"();`);
    this.addSql(`create or replace function "enrichment_job_enrichment_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'enrichment:' || new.id || ':' || new.status); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "enrichment_job_notify" AFTER UPDATE on "enrichment_job" for each ROW execute function "enrichment_job_enrichment_job_notify_fn"();`);

    this.addSql(`drop trigger if exists "scrape_job_notify" on "scrape_job";`);
    this.addSql(`drop function if exists "scrape_job_scrape_job_notify_fn"();`);
    this.addSql(`create or replace function "scrape_job_scrape_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'scrape:' || new.id || ':' || new.status); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "scrape_job_notify" AFTER UPDATE on "scrape_job" for each ROW execute function "scrape_job_scrape_job_notify_fn"();`);

    this.addSql(`drop trigger if exists "verification_job_notify" on "verification_job";`);
    this.addSql(`drop function if exists "verification_job_verification_job_notify_fn"();`);
    this.addSql(`create or replace function "verification_job_verification_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'verification:' || new.id || ':' || new.verification_stage); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "verification_job_notify" AFTER UPDATE on "verification_job" for each ROW execute function "verification_job_verification_job_notify_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "enrichment_job_notify" on "enrichment_job";`);
    this.addSql(`drop function if exists "enrichment_job_enrichment_job_notify_fn"();`);
    this.addSql(`create or replace function "enrichment_job_enrichment_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'enrichment:' || new.id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "enrichment_job_notify" AFTER UPDATE on "enrichment_job" for each ROW execute function "enrichment_job_enrichment_job_notify_fn"();`);

    this.addSql(`drop trigger if exists "scrape_job_notify" on "scrape_job";`);
    this.addSql(`drop function if exists "scrape_job_scrape_job_notify_fn"();`);
    this.addSql(`create or replace function "scrape_job_scrape_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'scrape:' || new.id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "scrape_job_notify" AFTER UPDATE on "scrape_job" for each ROW execute function "scrape_job_scrape_job_notify_fn"();`);

    this.addSql(`drop trigger if exists "verification_job_notify" on "verification_job";`);
    this.addSql(`drop function if exists "verification_job_verification_job_notify_fn"();`);
    this.addSql(`create or replace function "verification_job_verification_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'verification:' || new.id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "verification_job_notify" AFTER UPDATE on "verification_job" for each ROW execute function "verification_job_verification_job_notify_fn"();`);
  }

}
