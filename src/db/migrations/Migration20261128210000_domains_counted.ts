import { Migration } from '@mikro-orm/migrations';

/**
 * Whether a verification job's domains after its first range are counted: creation counts and writes the first
 * range only, the rest is counted once the workflow has started on it. Every job before this one was counted whole.
 */
export class Migration20261128210000_domains_counted extends Migration {

  override name = 'Migration20261128210000_domains_counted';

  override up(): void | Promise<void> {
    this.addSql(`alter table "verification_job" add "domains_counted" boolean not null default true;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "verification_job" drop column "domains_counted";`);
  }

}
