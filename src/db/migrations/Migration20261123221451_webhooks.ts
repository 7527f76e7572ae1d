import { Migration } from '@mikro-orm/migrations';

export class Migration20261123221451_webhooks extends Migration {

  override name = 'Migration20261123221451_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_endpoint" ("id" uuid not null, "organization_id" uuid not null, "url" text not null, "events" text[] not null, "description" text null, "secret_ciphertext" text not null, "created_at" timestamptz not null, "disabled_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "webhook_endpoint_organization_id_id_index" on "webhook_endpoint" ("organization_id", "id");`);

    this.addSql(`alter table "webhook_endpoint" add constraint "webhook_endpoint_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_endpoint" cascade;`);
  }

}
