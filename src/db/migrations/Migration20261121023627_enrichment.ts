import { Migration } from '@mikro-orm/migrations';

export class Migration20261121023627_enrichment extends Migration {

  override name = 'Migration20261121023627_enrichment';

  override up(): void | Promise<void> {
    this.addSql(`create table "enrichment_request" ("id" uuid not null, "organization_id" uuid not null, "network_url" varchar(500) not null, "credits_used" int not null, "result" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "enrichment_request_organization_id_id_index" on "enrichment_request" ("organization_id", "id");`);

    this.addSql(`create table "enrichment_provider_setting" ("id" uuid not null, "organization_id" uuid not null, "provider" text not null, "enabled" boolean not null, "priority" int not null, "api_key_ciphertext" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "enrichment_provider_setting" add constraint "enrichment_provider_setting_organization_id_provider_unique" unique ("organization_id", "provider");`);

    this.addSql(`create table "enrichment_job" ("id" uuid not null, "organization_id" uuid not null, "list_id" uuid not null, "status" text not null, "fields" text[] not null, "total_leads" int not null, "processed_leads" int not null default 0, "success_count" int not null default 0, "failed_count" int not null default 0, "skipped_count" int not null default 0, "credits_used" int not null default 0, "estimated_credits" int not null, "stop_reason" text null, "failure_reason" text null, "cursor" uuid null, "last_lead_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "enrichment_job_organization_id_id_index" on "enrichment_job" ("organization_id", "id");`);

    this.addSql(`create table "enriched_profile" ("id" uuid not null, "organization_id" uuid not null, "network_url" varchar(500) not null, "first_name" varchar(200) null, "last_name" varchar(200) null, "title" varchar(300) null, "company" varchar(300) null, "work_email" varchar(254) null, "personal_email" varchar(254) null, "phone" varchar(50) null, "searched_fields" text[] not null, "paid_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "enriched_profile" add constraint "enriched_profile_organization_id_network_url_unique" unique ("organization_id", "network_url");`);

    this.addSql(`alter table "enrichment_request" add constraint "enrichment_request_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "enrichment_provider_setting" add constraint "enrichment_provider_setting_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "enrichment_provider_setting" add constraint "enrichment_provider_setting_provider_check" check ("provider" in ('pdl', 'hunter', 'lusha'));`);

    this.addSql(`alter table "enrichment_job" add constraint "enrichment_job_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "enrichment_job" add constraint "enrichment_job_list_id_foreign" foreign key ("list_id") references "lead_list" ("id") on delete cascade;`);
    this.addSql(`alter table "enrichment_job" add constraint "enrichment_job_status_check" check ("status" in ('pending', 'processing', 'completed', 'failed'));`);
    this.addSql(`alter table "enrichment_job" add constraint "enrichment_job_fields_check" check ("fields" <@ array['workEmail'::text, 'personalEmail'::text, 'phone'::text]);`);
    this.addSql(`alter table "enrichment_job" add constraint "enrichment_job_stop_reason_check" check ("stop_reason" in ('insufficient_credits'));`);

    this.addSql(`alter table "enriched_profile" add constraint "enriched_profile_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "enriched_profile" add constraint "enriched_profile_searched_fields_check" check ("searched_fields" <@ array['workEmail'::text, 'personalEmail'::text, 'phone'::text]);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "enrichment_request" cascade;`);
    this.addSql(`drop table if exists "enrichment_provider_setting" cascade;`);
    this.addSql(`drop table if exists "enrichment_job" cascade;`);
    this.addSql(`drop table if exists "enriched_profile" cascade;`);
  }

}
