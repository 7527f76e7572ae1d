import { Migration } from '@mikro-orm/migrations';

export class Migration20261123211601_verification_mx_provider extends Migration {

  override name = 'Migration20261123211601_verification_mx_provider';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_result" add "mx_provider" text null;`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_mx_provider_check" check ("mx_provider" in ('google', 'microsoft', 'yahoo', 'zoho', 'proofpoint', 'mimecast', 'other'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_result" drop constraint "verification_result_mx_provider_check";`);
    this.addSql(`alter table "verification_result" drop column "mx_provider";`);
  }

}
