import { Migration } from '@mikro-orm/migrations';

/** The per-(egress, MX host) politeness budget every worker process shares (CONTRACT §11); see `smtp/repository-budget.ts`. */
export class Migration20261125102556_smtp_budget extends Migration {

  override name = 'Migration20261125102556_smtp_budget';

  override up(): void | Promise<void> {
    this.addSql(`create table "smtp_host_budget" ("egress" varchar(300) not null, "host" varchar(253) not null, "allowed" int not null, "next_open_at" timestamptz not null, "paused_until" timestamptz not null, "patience" varchar(10) not null, "updated_at" timestamptz not null, primary key ("egress", "host"));`);

    this.addSql(`create table "smtp_lease" ("id" uuid not null, "egress" varchar(300) not null, "host" varchar(253) not null, "holder" varchar(100) not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "smtp_lease_egress_host_expires_at_index" on "smtp_lease" ("egress", "host", "expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "smtp_host_budget" cascade;`);
    this.addSql(`drop table if exists "smtp_lease" cascade;`);
  }

}
