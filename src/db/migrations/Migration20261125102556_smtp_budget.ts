import { Migration } from '@mikro-orm/migrations';

/**
 * The per-(egress, MX host) politeness budget every worker process shares (CONTRACT §11), and the one function that
 * hands out a session lease. The function locks the host's budget row first (FOR UPDATE), then each of its later
 * statements takes a fresh snapshot (READ COMMITTED, a VOLATILE function), so it counts the leases of whoever held the
 * lock before it: no two processes can both see room for the last slot. `clock_timestamp()`, not `now()`: a caller
 * that waited for the lock must not date its lease from before the wait.
 *
 * Returns `wait_ms` 0 with the lease taken; > 0: the least interval or a throttling pause has that long to run;
 * -1: every slot is held. With `allowed` and `patience`, what the host taught any process so far.
 */
export class Migration20261125102556_smtp_budget extends Migration {

  override name = 'Migration20261125102556_smtp_budget';

  override up(): void | Promise<void> {
    this.addSql(`create table "smtp_host_budget" ("egress" varchar(300) not null, "host" varchar(253) not null, "allowed" int not null, "next_open_at" timestamptz not null, "paused_until" timestamptz not null, "patience" varchar(10) not null, "updated_at" timestamptz not null, primary key ("egress", "host"));`);

    this.addSql(`create table "smtp_lease" ("id" uuid not null, "egress" varchar(300) not null, "host" varchar(253) not null, "holder" varchar(100) not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "smtp_lease_egress_host_expires_at_index" on "smtp_lease" ("egress", "host", "expires_at");`);

    this.addSql(`
create function smtp_lease_acquire(p_egress text, p_host text, p_limit int, p_interval_ms int, p_ttl_ms int, p_id uuid, p_holder text)
returns table (wait_ms int, allowed int, patience text)
language plpgsql volatile as $$
declare
  b smtp_host_budget;
  live int;
  waiting int;
begin
  insert into smtp_host_budget as h (egress, host, allowed, next_open_at, paused_until, patience, updated_at)
  values (p_egress, p_host, p_limit, clock_timestamp(), clock_timestamp(), 'unknown', clock_timestamp())
  on conflict do nothing;
  select * into b from smtp_host_budget h where h.egress = p_egress and h.host = p_host for update;
  waiting := ceil(greatest(0, extract(epoch from greatest(b.next_open_at, b.paused_until) - clock_timestamp()) * 1000));
  if waiting > 0 then
    return query select waiting, least(b.allowed, p_limit), b.patience::text;
    return;
  end if;
  delete from smtp_lease l where l.egress = p_egress and l.host = p_host and l.expires_at <= clock_timestamp();
  select count(*) into live from smtp_lease l where l.egress = p_egress and l.host = p_host;
  if live >= least(b.allowed, p_limit) then
    return query select -1, least(b.allowed, p_limit), b.patience::text;
    return;
  end if;
  insert into smtp_lease (id, egress, host, holder, expires_at)
  values (p_id, p_egress, p_host, p_holder, clock_timestamp() + p_ttl_ms * interval '1 millisecond');
  update smtp_host_budget h set next_open_at = clock_timestamp() + p_interval_ms * interval '1 millisecond', updated_at = clock_timestamp()
  where h.egress = p_egress and h.host = p_host;
  return query select 0, least(b.allowed, p_limit), b.patience::text;
end
$$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function if exists smtp_lease_acquire;`);
    this.addSql(`drop table if exists "smtp_host_budget" cascade;`);
    this.addSql(`drop table if exists "smtp_lease" cascade;`);
  }

}
