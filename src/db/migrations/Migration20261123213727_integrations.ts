import { Migration } from '@mikro-orm/migrations';

export class Migration20261123213727_integrations extends Migration {

  override name = 'Migration20261123213727_integrations';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_key" ("id" uuid not null, "organization_id" uuid not null, "key" varchar(255) not null, "method" varchar(10) not null, "path" text not null, "body_hash" varchar(64) not null, "status" int null, "response" text null, "content_type" varchar(200) null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "idempotency_key" add constraint "idempotency_key_organization_id_key_unique" unique ("organization_id", "key");`);

    this.addSql(`create table "verify_check" ("id" uuid not null, "organization_id" uuid not null, "email" varchar(254) not null, "domain" varchar(253) not null, "result" text not null, "reason" text null, "mx_host" varchar(253) null, "is_catch_all" boolean null, "checked_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "verify_check_organization_id_email_checked_at_index" on "verify_check" ("organization_id", "email", "checked_at");`);

    this.addSql(`create table "verify_domain_fact" ("id" uuid not null, "domain" varchar(253) not null, "mx_host" varchar(253) null, "is_catch_all" boolean null, "mail_verdict" text null, "checked_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "verify_domain_fact" add constraint "verify_domain_fact_domain_unique" unique ("domain");`);

    this.addSql(`alter table "idempotency_key" add constraint "idempotency_key_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "verify_check" add constraint "verify_check_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "verify_check" add constraint "verify_check_result_check" check ("result" in ('Valid', 'Invalid', 'Catch-All', 'Unknown'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_key" cascade;`);
    this.addSql(`drop table if exists "verify_check" cascade;`);
    this.addSql(`drop table if exists "verify_domain_fact" cascade;`);
  }

}
