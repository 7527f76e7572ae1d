import { Migration } from '@mikro-orm/migrations';

/** Buckets hand out tokens in batches: `granted` becomes how many the latest reservation got. */
export class Migration20261123212000_rate_limit_batches extends Migration {

  override name = 'Migration20261123212000_rate_limit_batches';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" alter column "granted" type int using ("granted"::int);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" alter column "granted" type boolean using ("granted" > 0);`);
  }

}
