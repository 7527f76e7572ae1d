import { Migration } from '@mikro-orm/migrations';

export class Migration20261121022648_initial extends Migration {

  override name = 'Migration20261121022648_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "login_failure" ("id" uuid not null, "email" varchar(254) not null, "client_ip" varchar(64) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "login_failure_email_created_at_index" on "login_failure" ("email", "created_at");`);
    this.addSql(`create index "login_failure_client_ip_created_at_index" on "login_failure" ("client_ip", "created_at");`);

    this.addSql(`create table "organization" ("id" uuid not null, "name" varchar(200) not null, "credit_balance" int not null default 0, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "lead_list" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(200) not null, "description" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "lead_list_organization_id_id_index" on "lead_list" ("organization_id", "id");`);

    this.addSql(`create table "lead" ("id" uuid not null, "organization_id" uuid not null, "list_id" uuid not null, "first_name" varchar(200) null, "last_name" varchar(200) null, "title" varchar(300) null, "company" varchar(300) null, "company_domain" varchar(253) null, "email" varchar(254) null, "network_url" varchar(500) null, "work_email" varchar(254) null, "personal_email" varchar(254) null, "phone" varchar(50) null, "email_status" text null, "email_verified_at" timestamptz null, "source" text not null, "enriched_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "lead_list_id_id_index" on "lead" ("list_id", "id");`);
    this.addSql(`create index "lead_organization_id_phone_index" on "lead" ("organization_id", "phone");`);
    this.addSql(`create index "lead_organization_id_email_index" on "lead" ("organization_id", "email");`);
    this.addSql(`create index "lead_organization_id_network_url_index" on "lead" ("organization_id", "network_url");`);

    this.addSql(`create table "credit_ledger" ("id" uuid not null, "organization_id" uuid not null, "delta" int not null, "reason" varchar(300) not null, "ref_type" varchar(50) null, "ref_id" varchar(200) null, "idempotency_key" varchar(300) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "credit_ledger" add constraint "credit_ledger_idempotency_key_unique" unique ("idempotency_key");`);
    this.addSql(`create index "credit_ledger_organization_id_id_index" on "credit_ledger" ("organization_id", "id");`);

    this.addSql(`create table "app_user" ("id" uuid not null, "organization_id" uuid not null, "email" varchar(254) not null, "name" varchar(200) null, "password_hash" varchar(300) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "app_user" add constraint "app_user_email_unique" unique ("email");`);

    this.addSql(`create table "session" ("id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "session" add constraint "session_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "lead_list" add constraint "lead_list_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "lead" add constraint "lead_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "lead" add constraint "lead_list_id_foreign" foreign key ("list_id") references "lead_list" ("id") on delete cascade;`);
    this.addSql(`alter table "lead" add constraint "lead_email_status_check" check ("email_status" in ('Valid', 'Invalid', 'Catch-All', 'Unknown'));`);
    this.addSql(`alter table "lead" add constraint "lead_source_check" check ("source" in ('manual', 'import', 'scrape', 'api'));`);

    this.addSql(`alter table "credit_ledger" add constraint "credit_ledger_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "app_user" add constraint "app_user_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "session" add constraint "session_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "lead_list" drop constraint "lead_list_organization_id_foreign";`);
    this.addSql(`alter table "lead" drop constraint "lead_organization_id_foreign";`);
    this.addSql(`alter table "credit_ledger" drop constraint "credit_ledger_organization_id_foreign";`);
    this.addSql(`alter table "app_user" drop constraint "app_user_organization_id_foreign";`);
    this.addSql(`alter table "lead" drop constraint "lead_list_id_foreign";`);
    this.addSql(`alter table "session" drop constraint "session_user_id_foreign";`);

    this.addSql(`drop table if exists "login_failure" cascade;`);
    this.addSql(`drop table if exists "organization" cascade;`);
    this.addSql(`drop table if exists "lead_list" cascade;`);
    this.addSql(`drop table if exists "lead" cascade;`);
    this.addSql(`drop table if exists "credit_ledger" cascade;`);
    this.addSql(`drop table if exists "app_user" cascade;`);
    this.addSql(`drop table if exists "session" cascade;`);
  }

}
