import { Migration } from '@mikro-orm/migrations';

export class Migration20261125100908_verify_evidence extends Migration {

  override name = 'Migration20261125100908_verify_evidence';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verify_check" add "smtp_code" int null, add "enhanced_code" varchar(16) null, add "attempts" int not null default 0;`);

    this.addSql(`alter table "verify_domain_fact" add "smtp_code" int null, add "enhanced_code" varchar(16) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verify_check" drop column "smtp_code", drop column "enhanced_code", drop column "attempts";`);

    this.addSql(`alter table "verify_domain_fact" drop column "smtp_code", drop column "enhanced_code";`);
  }

}
