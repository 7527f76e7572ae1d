import { Migration } from '@mikro-orm/migrations';

/** When the next greylisting pass of a verification job is due (the job's `nextRetryAt`, CONTRACT §15). */
export class Migration20261127200944_deferred_retry_at extends Migration {

  override name = 'Migration20261127200944_deferred_retry_at';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_job" add "deferred_retry_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_job" drop column "deferred_retry_at";`);
  }

}
