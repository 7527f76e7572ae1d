import { Migration } from '@mikro-orm/migrations';

export class Migration20261127193004_teams_and_dedupe extends Migration {

  override name = 'Migration20261127193004_teams_and_dedupe';

  override up(): void | Promise<void> {
    this.addSql(`create table "organization_invite" ("id" uuid not null, "organization_id" uuid not null, "created_by_id" uuid null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "organization_invite" add constraint "organization_invite_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create index "lead_list_id_network_url_index" on "lead" ("list_id", "network_url");`);

    // Every user so far signed their organization up (one user per organization): each is its owner.
    this.addSql(`alter table "app_user" add "role" text not null default 'owner';`);
    this.addSql(`alter table "app_user" alter column "role" drop default;`);
    this.addSql(`alter table "app_user" add constraint "app_user_role_check" check ("role" in ('owner', 'member'));`);

    this.addSql(`alter table "organization_invite" add constraint "organization_invite_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "organization_invite" add constraint "organization_invite_created_by_id_foreign" foreign key ("created_by_id") references "app_user" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "organization_invite" cascade;`);

    this.addSql(`alter table "app_user" drop constraint "app_user_role_check";`);
    this.addSql(`alter table "app_user" drop column "role";`);

    this.addSql(`drop index "lead_list_id_network_url_index";`);
  }

}
