import { Migration } from '@mikro-orm/migrations';

export class Migration20261121023558_verification extends Migration {

  override name = 'Migration20261121023558_verification';

  override up(): void | Promise<void> {
    this.addSql(`create table "verification_job" ("id" uuid not null, "organization_id" uuid not null, "list_id" uuid not null, "verification_method" text not null, "verification_stage" text not null, "total_emails" int not null, "smtp_completed_at" timestamptz null, "user_decision" text null, "decision_made_at" timestamptz null, "completed_at" timestamptz null, "failure_reason" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "verification_job_organization_id_id_index" on "verification_job" ("organization_id", "id");`);
    this.addSql(`create index "verification_job_list_id_id_index" on "verification_job" ("list_id", "id");`);

    this.addSql(`create table "verification_domain" ("id" uuid not null, "job_id" uuid not null, "domain" varchar(253) not null, "seq" int not null, "email_count" int not null, "is_catch_all" boolean null, "mx_host" varchar(253) null, "smtp_done_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "verification_domain" add constraint "verification_domain_job_id_domain_unique" unique ("job_id", "domain");`);
    this.addSql(`alter table "verification_domain" add constraint "verification_domain_job_id_seq_unique" unique ("job_id", "seq");`);

    this.addSql(`create table "verification_result" ("id" uuid not null, "job_id" uuid not null, "email" varchar(254) not null, "domain" varchar(253) not null, "smtp_result" text null, "smtp_checked_at" timestamptz null, "api_status" text null, "result" text null, "source" text null, "reason" text null, "mx_host" varchar(253) null, "checked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "verification_result_job_id_domain_id_index" on "verification_result" ("job_id", "domain", "id");`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_job_id_email_unique" unique ("job_id", "email");`);

    this.addSql(`create table "verification_spend" ("id" uuid not null, "organization_id" uuid not null, "job_id" uuid null, "email" varchar(254) not null, "provider" varchar(50) not null, "amount_micros" int not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "verification_spend_organization_id_id_index" on "verification_spend" ("organization_id", "id");`);
    this.addSql(`alter table "verification_spend" add constraint "verification_spend_job_id_email_unique" unique ("job_id", "email");`);

    this.addSql(`alter table "verification_job" add constraint "verification_job_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "verification_job" add constraint "verification_job_list_id_foreign" foreign key ("list_id") references "lead_list" ("id") on delete cascade;`);
    this.addSql(`alter table "verification_job" add constraint "verification_job_verification_method_check" check ("verification_method" in ('smtp_only', 'smtp_api_fallback', 'api_only'));`);
    this.addSql(`alter table "verification_job" add constraint "verification_job_verification_stage_check" check ("verification_stage" in ('pending', 'smtp_verifying', 'awaiting_decision', 'api_verifying', 'completed', 'failed'));`);
    this.addSql(`alter table "verification_job" add constraint "verification_job_user_decision_check" check ("user_decision" in ('accept_current', 'fill_unknowns_only', 'fill_catchall_only', 'fill_all_gaps'));`);

    this.addSql(`alter table "verification_domain" add constraint "verification_domain_job_id_foreign" foreign key ("job_id") references "verification_job" ("id") on delete cascade;`);

    this.addSql(`alter table "verification_result" add constraint "verification_result_job_id_foreign" foreign key ("job_id") references "verification_job" ("id") on delete cascade;`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_smtp_result_check" check ("smtp_result" in ('Valid', 'Invalid', 'Catch-All', 'Unknown'));`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_api_status_check" check ("api_status" in ('pending', 'done'));`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_result_check" check ("result" in ('Valid', 'Invalid', 'Catch-All', 'Unknown'));`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_source_check" check ("source" in ('precheck', 'smtp', 'api'));`);

    this.addSql(`alter table "verification_spend" add constraint "verification_spend_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "verification_spend" add constraint "verification_spend_job_id_foreign" foreign key ("job_id") references "verification_job" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_domain" drop constraint "verification_domain_job_id_foreign";`);
    this.addSql(`alter table "verification_result" drop constraint "verification_result_job_id_foreign";`);
    this.addSql(`alter table "verification_spend" drop constraint "verification_spend_job_id_foreign";`);

    this.addSql(`drop table if exists "verification_job" cascade;`);
    this.addSql(`drop table if exists "verification_domain" cascade;`);
    this.addSql(`drop table if exists "verification_result" cascade;`);
    this.addSql(`drop table if exists "verification_spend" cascade;`);
  }

}
