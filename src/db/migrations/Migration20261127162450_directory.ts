import { Migration } from '@mikro-orm/migrations';

/** The Microsoft directory's shared pace and its per-domain canary verdicts (CONTRACT §12); see `directory/repository.ts`. */
export class Migration20261127162450_directory extends Migration {

  override name = 'Migration20261127162450_directory';

  override up(): void | Promise<void> {
    this.addSql(`create table "directory_pacer" ("name" varchar(40) not null, "next_at" timestamptz not null, primary key ("name"));`);

    this.addSql(`create table "directory_tenant" ("domain" varchar(253) not null, "verdict" varchar(12) null, "checked_at" timestamptz null, "asking_until" timestamptz null, primary key ("domain"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "directory_pacer" cascade;`);
    this.addSql(`drop table if exists "directory_tenant" cascade;`);
  }

}
