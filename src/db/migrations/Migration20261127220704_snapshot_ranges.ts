import { Migration } from '@mikro-orm/migrations';

/**
 * A list's addresses by domain (the verification snapshot written in ranges of domains) and the job's progress
 * through them.
 */
export class Migration20261127220704_snapshot_ranges extends Migration {

  override name = 'Migration20261127220704_snapshot_ranges';

  override up(): void | Promise<void> {
    this.addSql(`create index "lead_list_id_email_domain_index" on "lead" ("list_id", (case when strpos(email_key, '@') > 0 then split_part(email_key, '@', -1) else '' end), "email_key");`);

    this.addSql(`alter table "verification_job" add "snapshot_seq" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "lead_list_id_email_domain_index";`);

    this.addSql(`alter table "verification_job" drop column "snapshot_seq";`);
  }

}
