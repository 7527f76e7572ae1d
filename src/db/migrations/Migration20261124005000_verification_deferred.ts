import { Migration } from '@mikro-orm/migrations';

export class Migration20261124005000_verification_deferred extends Migration {

  override name = 'Migration20261124005000_verification_deferred';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_result" add "deferred_since" timestamptz null, add "deferred_attempts" int null, add "deferred_reply" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_result" drop column "deferred_since", drop column "deferred_attempts", drop column "deferred_reply";`);
  }

}
