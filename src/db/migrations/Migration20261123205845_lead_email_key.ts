import { Migration } from '@mikro-orm/migrations';

export class Migration20261123205845_lead_email_key extends Migration {

  override name = 'Migration20261123205845_lead_email_key';

  override up(): void | Promise<void> {
    this.addSql(`alter table "lead" add "email_key" varchar(254) generated always as (lower(email)) stored null;`);
    this.addSql(`create index "lead_list_id_email_key_index" on "lead" ("list_id", "email_key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "lead_list_id_email_key_index";`);
    this.addSql(`alter table "lead" drop column "email_key";`);
  }

}
