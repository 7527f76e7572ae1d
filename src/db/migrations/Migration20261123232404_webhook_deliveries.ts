import { Migration } from '@mikro-orm/migrations';

export class Migration20261123232404_webhook_deliveries extends Migration {

  override name = 'Migration20261123232404_webhook_deliveries';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_event" ("id" uuid not null, "organization_id" uuid not null, "type" text not null, "job_id" uuid not null, "body" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_job_id_type_unique" unique ("job_id", "type");`);

    this.addSql(`create table "webhook_delivery" ("id" uuid not null, "endpoint_id" uuid not null, "event_id" uuid not null, "status" text not null, "attempts" int not null, "last_status_code" int null, "last_error" text null, "next_attempt_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_delivery_endpoint_id_id_index" on "webhook_delivery" ("endpoint_id", "id");`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_event_id_unique" unique ("endpoint_id", "event_id");`);

    this.addSql(`create index "idempotency_key_created_at_index" on "idempotency_key" ("created_at");`);

    this.addSql(`create index "verify_check_checked_at_index" on "verify_check" ("checked_at");`);

    this.addSql(`create index "verify_domain_fact_checked_at_index" on "verify_domain_fact" ("checked_at");`);

    this.addSql(`alter table "webhook_event" add constraint "webhook_event_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_type_check" check ("type" in ('verification.awaiting_decision', 'verification.completed', 'verification.failed', 'scrape.completed', 'scrape.failed', 'enrichment.completed', 'enrichment.failed'));`);

    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoint" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_event_id_foreign" foreign key ("event_id") references "webhook_event" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_status_check" check ("status" in ('pending', 'succeeded', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_delivery" drop constraint "webhook_delivery_event_id_foreign";`);

    this.addSql(`drop table if exists "webhook_event" cascade;`);
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);

    this.addSql(`drop index "idempotency_key_created_at_index";`);

    this.addSql(`drop index "verify_check_checked_at_index";`);

    this.addSql(`drop index "verify_domain_fact_checked_at_index";`);
  }

}
