import { Migration } from '@mikro-orm/migrations';

/** The score bound of a fill decision (CONTRACT §12: paying only for the doubtful Catch-All results). */
export class Migration20261127162612_catch_all_max_score extends Migration {

  override name = 'Migration20261127162612_catch_all_max_score';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_job" add "catch_all_max_score" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_job" drop column "catch_all_max_score";`);
  }

}
