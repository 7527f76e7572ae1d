import { Migration } from '@mikro-orm/migrations';

export class Migration20261124003652_job_warnings extends Migration {

  override name = 'Migration20261124003652_job_warnings';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_job" add "warnings" jsonb not null default '[]';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_job" drop column "warnings";`);
  }

}
