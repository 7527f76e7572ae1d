import { Migration } from '@mikro-orm/migrations';

export class Migration20261124004919_result_evidence extends Migration {

  override name = 'Migration20261124004919_result_evidence';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_result" add "smtp_code" int null, add "enhanced_code" varchar(16) null, add "attempts" int not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_result" drop column "smtp_code", drop column "enhanced_code", drop column "attempts";`);
  }

}
