import { Migration } from '@mikro-orm/migrations';

export class Migration20261124184857_verification_transcript extends Migration {

  override name = 'Migration20261124184857_verification_transcript';

  override up(): void | Promise<void> {
    this.addSql(`create table "verification_smtp_session" ("job_id" uuid not null, "id" uuid not null, "at" timestamptz not null, "mx_host" varchar(253) not null, "ip" varchar(45) not null, "lines" jsonb not null, primary key ("job_id", "id"));`);

    this.addSql(`alter table "verification_result" add "transcript" jsonb not null default '[]';`);

    this.addSql(`alter table "verification_smtp_session" add constraint "verification_smtp_session_job_id_foreign" foreign key ("job_id") references "verification_job" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "verification_smtp_session" cascade;`);

    this.addSql(`alter table "verification_result" drop column "transcript";`);
  }

}
