import { Migration } from '@mikro-orm/migrations';

export class Migration20261121023606_scrape extends Migration {

  override name = 'Migration20261121023606_scrape';

  override up(): void | Promise<void> {
    this.addSql(`create table "scrape_job" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(200) not null, "input_type" text not null, "status" text not null, "total_items" int not null, "completed_items" int not null default 0, "found_items" int not null default 0, "control_version" int not null default 0, "failure_reason" text null, "list_id" uuid null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "scrape_job_organization_id_id_index" on "scrape_job" ("organization_id", "id");`);
    this.addSql(`create index "scrape_job_organization_id_status_id_index" on "scrape_job" ("organization_id", "status", "id");`);

    this.addSql(`create table "scrape_item" ("id" uuid not null, "job_id" uuid not null, "row_number" int not null, "status" text not null, "company" varchar(300) null, "role" varchar(300) null, "first_name" varchar(200) null, "last_name" varchar(200) null, "domain" varchar(253) null, "network_url" varchar(500) null, "error" varchar(500) null, "processed_at" timestamptz null, "synced_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "scrape_item" add constraint "scrape_item_job_id_row_number_unique" unique ("job_id", "row_number");`);

    this.addSql(`alter table "scrape_job" add constraint "scrape_job_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "scrape_job" add constraint "scrape_job_list_id_foreign" foreign key ("list_id") references "lead_list" ("id") on delete set null;`);
    this.addSql(`alter table "scrape_job" add constraint "scrape_job_input_type_check" check ("input_type" in ('companies', 'names', 'domains'));`);
    this.addSql(`alter table "scrape_job" add constraint "scrape_job_status_check" check ("status" in ('pending', 'processing', 'paused', 'completed', 'failed'));`);

    this.addSql(`alter table "scrape_item" add constraint "scrape_item_job_id_foreign" foreign key ("job_id") references "scrape_job" ("id") on delete cascade;`);
    this.addSql(`alter table "scrape_item" add constraint "scrape_item_status_check" check ("status" in ('pending', 'found', 'not_found', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "scrape_item" drop constraint "scrape_item_job_id_foreign";`);

    this.addSql(`drop table if exists "scrape_job" cascade;`);
    this.addSql(`drop table if exists "scrape_item" cascade;`);
  }

}
