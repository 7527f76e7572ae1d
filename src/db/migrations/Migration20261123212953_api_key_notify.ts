import { Migration } from '@mikro-orm/migrations';

export class Migration20261123212953_api_key_notify extends Migration {

  override name = 'Migration20261123212953_api_key_notify';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "api_key_api_key_changed_fn"() returns trigger as $$ begin if tg_op = 'DELETE' or (old.revoked_at, old.expires_at, old.scopes, old.organization_id, old.key_hash) is distinct from (new.revoked_at, new.expires_at, new.scopes, new.organization_id, new.key_hash) then perform pg_notify('api_key_changed', old.key_hash); end if; return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "api_key_changed" AFTER UPDATE OR DELETE on "api_key" for each ROW execute function "api_key_api_key_changed_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "api_key_changed" on "api_key";`);
    this.addSql(`drop function if exists "api_key_api_key_changed_fn"();`);
  }

}
