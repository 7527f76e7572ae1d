import { Migration } from '@mikro-orm/migrations';

export class Migration20261121023549_api_keys extends Migration {

  override name = 'Migration20261121023549_api_keys';

  override up(): void | Promise<void> {
    this.addSql(`create table "rate_limit_bucket" ("bucket" varchar(100) not null, "tokens" double precision not null, "granted" boolean not null, "updated_at" timestamptz not null, primary key ("bucket"));`);

    this.addSql(`create table "api_key" ("id" uuid not null, "organization_id" uuid not null, "created_by_id" uuid null, "name" varchar(200) not null, "scopes" text[] not null, "key_hash" varchar(64) not null, "start" varchar(16) not null, "expires_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "api_key" add constraint "api_key_key_hash_unique" unique ("key_hash");`);
    this.addSql(`create index "api_key_organization_id_id_index" on "api_key" ("organization_id", "id");`);

    this.addSql(`alter table "api_key" add constraint "api_key_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "api_key" add constraint "api_key_created_by_id_foreign" foreign key ("created_by_id") references "app_user" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limit_bucket" cascade;`);
    this.addSql(`drop table if exists "api_key" cascade;`);
  }

}
