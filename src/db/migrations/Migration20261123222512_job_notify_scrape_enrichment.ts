import { Migration } from '@mikro-orm/migrations';

/** Live progress (CONTRACT §9.4) for scrape and bulk enrichment jobs, as job_notify does for verification. */
export class Migration20261123222512_job_notify_scrape_enrichment extends Migration {

  override name = 'Migration20261123222512_job_notify_scrape_enrichment';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "enrichment_job_enrichment_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'enrichment:' || new.id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "enrichment_job_notify" AFTER UPDATE on "enrichment_job" for each ROW execute function "enrichment_job_enrichment_job_notify_fn"();`);

    this.addSql(`create or replace function "scrape_job_scrape_job_notify_fn"() returns trigger as $$ begin perform pg_notify('job_events', 'scrape:' || new.id); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "scrape_job_notify" AFTER UPDATE on "scrape_job" for each ROW execute function "scrape_job_scrape_job_notify_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "enrichment_job_notify" on "enrichment_job";`);
    this.addSql(`drop function if exists "enrichment_job_enrichment_job_notify_fn"();`);

    this.addSql(`drop trigger if exists "scrape_job_notify" on "scrape_job";`);
    this.addSql(`drop function if exists "scrape_job_scrape_job_notify_fn"();`);
  }

}
