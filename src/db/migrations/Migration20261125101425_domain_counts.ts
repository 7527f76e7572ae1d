import { Migration } from '@mikro-orm/migrations';

export class Migration20261125101425_domain_counts extends Migration {

  override name = 'Migration20261125101425_domain_counts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_domain" add "processed_count" int not null default 0, add "deferred_count" int not null default 0, add "smtp_valid_count" int not null default 0, add "smtp_invalid_count" int not null default 0, add "smtp_catch_all_count" int not null default 0, add "smtp_unknown_count" int not null default 0, add "valid_count" int not null default 0, add "invalid_count" int not null default 0, add "catch_all_count" int not null default 0, add "unknown_count" int not null default 0, add "api_valid_count" int not null default 0, add "api_invalid_count" int not null default 0, add "api_catch_all_count" int not null default 0, add "api_unknown_count" int not null default 0, add "last_checked_at" timestamptz null;`);

    // Every statement that updates results moves its domains' counts by what it changed (old rows out, new rows in).
    this.addSql(`create or replace function "verification_result_counts_fn"() returns trigger as $$ begin
      with changed as (
        select job_id, domain, coalesce(sum(sign) filter (where (smtp_checked_at is not null and api_status is distinct from 'pending')), 0)::int as processed_count, coalesce(sum(sign) filter (where (deferred_since is not null and smtp_checked_at is null)), 0)::int as deferred_count, coalesce(sum(sign) filter (where smtp_result = 'Valid'), 0)::int as smtp_valid_count, coalesce(sum(sign) filter (where smtp_result = 'Invalid'), 0)::int as smtp_invalid_count, coalesce(sum(sign) filter (where smtp_result = 'Catch-All'), 0)::int as smtp_catch_all_count, coalesce(sum(sign) filter (where smtp_result = 'Unknown'), 0)::int as smtp_unknown_count, coalesce(sum(sign) filter (where result = 'Valid'), 0)::int as valid_count, coalesce(sum(sign) filter (where result = 'Invalid'), 0)::int as invalid_count, coalesce(sum(sign) filter (where result = 'Catch-All'), 0)::int as catch_all_count, coalesce(sum(sign) filter (where result = 'Unknown'), 0)::int as unknown_count, coalesce(sum(sign) filter (where source = 'api' and result = 'Valid'), 0)::int as api_valid_count, coalesce(sum(sign) filter (where source = 'api' and result = 'Invalid'), 0)::int as api_invalid_count, coalesce(sum(sign) filter (where source = 'api' and result = 'Catch-All'), 0)::int as api_catch_all_count, coalesce(sum(sign) filter (where source = 'api' and result = 'Unknown'), 0)::int as api_unknown_count, max(checked_at) filter (where sign = 1) as last_checked_at
        from (select 1 as sign, job_id, domain, smtp_checked_at, api_status, deferred_since, smtp_result, result, source, checked_at from new_rows
              union all
              select -1, job_id, domain, smtp_checked_at, api_status, deferred_since, smtp_result, result, source, checked_at from old_rows) rows
        group by job_id, domain
      )
      update "verification_domain" d set processed_count = d.processed_count + c.processed_count, deferred_count = d.deferred_count + c.deferred_count, smtp_valid_count = d.smtp_valid_count + c.smtp_valid_count, smtp_invalid_count = d.smtp_invalid_count + c.smtp_invalid_count, smtp_catch_all_count = d.smtp_catch_all_count + c.smtp_catch_all_count, smtp_unknown_count = d.smtp_unknown_count + c.smtp_unknown_count, valid_count = d.valid_count + c.valid_count, invalid_count = d.invalid_count + c.invalid_count, catch_all_count = d.catch_all_count + c.catch_all_count, unknown_count = d.unknown_count + c.unknown_count, api_valid_count = d.api_valid_count + c.api_valid_count, api_invalid_count = d.api_invalid_count + c.api_invalid_count, api_catch_all_count = d.api_catch_all_count + c.api_catch_all_count, api_unknown_count = d.api_unknown_count + c.api_unknown_count, last_checked_at = greatest(d.last_checked_at, c.last_checked_at)
      from changed c where d.job_id = c.job_id and d.domain = c.domain;
      return null; end; $$ language plpgsql;`);
    this.addSql(`update "verification_domain" d set processed_count = c.processed_count, deferred_count = c.deferred_count, smtp_valid_count = c.smtp_valid_count, smtp_invalid_count = c.smtp_invalid_count, smtp_catch_all_count = c.smtp_catch_all_count, smtp_unknown_count = c.smtp_unknown_count, valid_count = c.valid_count, invalid_count = c.invalid_count, catch_all_count = c.catch_all_count, unknown_count = c.unknown_count, api_valid_count = c.api_valid_count, api_invalid_count = c.api_invalid_count, api_catch_all_count = c.api_catch_all_count, api_unknown_count = c.api_unknown_count, last_checked_at = c.last_checked_at
      from (select job_id, domain, count(*) filter (where (smtp_checked_at is not null and api_status is distinct from 'pending'))::int as processed_count, count(*) filter (where (deferred_since is not null and smtp_checked_at is null))::int as deferred_count, count(*) filter (where smtp_result = 'Valid')::int as smtp_valid_count, count(*) filter (where smtp_result = 'Invalid')::int as smtp_invalid_count, count(*) filter (where smtp_result = 'Catch-All')::int as smtp_catch_all_count, count(*) filter (where smtp_result = 'Unknown')::int as smtp_unknown_count, count(*) filter (where result = 'Valid')::int as valid_count, count(*) filter (where result = 'Invalid')::int as invalid_count, count(*) filter (where result = 'Catch-All')::int as catch_all_count, count(*) filter (where result = 'Unknown')::int as unknown_count, count(*) filter (where source = 'api' and result = 'Valid')::int as api_valid_count, count(*) filter (where source = 'api' and result = 'Invalid')::int as api_invalid_count, count(*) filter (where source = 'api' and result = 'Catch-All')::int as api_catch_all_count, count(*) filter (where source = 'api' and result = 'Unknown')::int as api_unknown_count, max(checked_at) as last_checked_at from "verification_result" group by job_id, domain) c
      where d.job_id = c.job_id and d.domain = c.domain;`);

    this.addSql(`create trigger "verification_result_counts" after update on "verification_result" referencing old table as old_rows new table as new_rows for each statement execute function "verification_result_counts_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_domain" drop column "processed_count", drop column "deferred_count", drop column "smtp_valid_count", drop column "smtp_invalid_count", drop column "smtp_catch_all_count", drop column "smtp_unknown_count", drop column "valid_count", drop column "invalid_count", drop column "catch_all_count", drop column "unknown_count", drop column "api_valid_count", drop column "api_invalid_count", drop column "api_catch_all_count", drop column "api_unknown_count", drop column "last_checked_at";`);

    this.addSql(`drop trigger if exists "verification_result_counts" on "verification_result";`);
    this.addSql(`drop function if exists "verification_result_counts_fn"();`);
  }

}
