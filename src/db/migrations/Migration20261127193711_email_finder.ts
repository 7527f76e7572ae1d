import { Migration } from '@mikro-orm/migrations';

export class Migration20261127193711_email_finder extends Migration {

  override name = 'Migration20261127193711_email_finder';

  override up(): void | Promise<void> {
    this.addSql(`create table "email_find" ("id" uuid not null, "organization_id" uuid not null, "first_name" varchar(200) not null, "last_name" varchar(200) not null, "domain" varchar(253) not null, "answer" jsonb null, "credits_used" int not null default 0, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "email_find_organization_id_id_index" on "email_find" ("organization_id", "id");`);

    this.addSql(`alter table "enrichment_provider_setting" drop constraint "enrichment_provider_setting_provider_check";`);
    this.addSql(`alter table "enrichment_provider_setting" add constraint "enrichment_provider_setting_provider_check" check ("provider" in ('finder', 'pdl', 'hunter', 'lusha'));`);

    this.addSql(`alter table "email_find" add constraint "email_find_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "email_find" cascade;`);

    this.addSql(`alter table "enrichment_provider_setting" drop constraint "enrichment_provider_setting_provider_check";`);
    this.addSql(`alter table "enrichment_provider_setting" add constraint "enrichment_provider_setting_provider_check" check ("provider" in ('pdl', 'hunter', 'lusha'));`);
  }

}
