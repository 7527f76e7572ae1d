import { Migration } from '@mikro-orm/migrations';

/** Catch-all truth (CONTRACT §12): who hosts the mailboxes, the score and its reasons, the directory's answer, send outcomes and learned template shares. */
export class Migration20261127161640_catch_all_truth extends Migration {

  override name = 'Migration20261127161640_catch_all_truth';

  override up(): void | Promise<void> {
    this.addSql(`create table "domain_template_share" ("domain" varchar(253) not null, "template" text not null, "valid_count" int not null, "updated_at" timestamptz not null, primary key ("domain", "template"));`);

    this.addSql(`create table "send_outcome" ("id" uuid not null, "organization_id" uuid not null, "email" varchar(254) not null, "outcome" text not null, "bounce_type" text null, "at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "send_outcome" add constraint "send_outcome_organization_id_email_unique" unique ("organization_id", "email");`);

    this.addSql(`alter table "verification_job" add "templates_learned_at" timestamptz null;`);

    this.addSql(`alter table "verification_result" drop constraint "verification_result_source_check";`);
    this.addSql(`alter table "verification_result" add "mailbox_provider" text null, add "mailbox_provider_signals" jsonb not null default '[]', add "catch_all_score" int null, add "catch_all_reasons" jsonb not null default '[]', add "directory_result" int null;`);
    this.addSql(`create index "verification_result_catch_all_score_index" on "verification_result" ("job_id", "catch_all_score") where "result" = 'Catch-All';`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_mailbox_provider_check" check ("mailbox_provider" in ('google', 'microsoft', 'yahoo', 'zoho', 'proofpoint', 'mimecast', 'other'));`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_source_check" check ("source" in ('precheck', 'smtp', 'directory', 'api'));`);

    this.addSql(`alter table "domain_template_share" add constraint "domain_template_share_template_check" check ("template" in ('first.last', 'flast', 'first', 'firstlast', 'first_last', 'last.first', 'f.last', 'firstl', 'last', 'first-last', 'lastf', 'first.l', 'lastfirst', 'last_first', 'fl'));`);

    this.addSql(`alter table "send_outcome" add constraint "send_outcome_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "send_outcome" add constraint "send_outcome_outcome_check" check ("outcome" in ('delivered', 'bounced'));`);
    this.addSql(`alter table "send_outcome" add constraint "send_outcome_bounce_type_check" check ("bounce_type" in ('hard', 'soft'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "domain_template_share" cascade;`);
    this.addSql(`drop table if exists "send_outcome" cascade;`);

    this.addSql(`alter table "verification_job" drop column "templates_learned_at";`);

    this.addSql(`drop index "verification_result_catch_all_score_index";`);
    this.addSql(`alter table "verification_result" drop constraint "verification_result_mailbox_provider_check";`);
    this.addSql(`alter table "verification_result" drop constraint "verification_result_source_check";`);
    this.addSql(`alter table "verification_result" drop column "mailbox_provider", drop column "mailbox_provider_signals", drop column "catch_all_score", drop column "catch_all_reasons", drop column "directory_result";`);
    this.addSql(`alter table "verification_result" add constraint "verification_result_source_check" check ("source" in ('precheck', 'smtp', 'api'));`);
  }

}
