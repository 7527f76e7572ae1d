import { Migration } from '@mikro-orm/migrations';

/**
 * A session lease in one round trip: the host's budget row locked (created on first use), then, in a statement of
 * its own, a slot taken if one is free. A VOLATILE function takes a fresh snapshot for each statement, so the slot
 * statement counts the lease of whoever held the row lock before, as the two statements of a READ COMMITTED
 * transaction did (four round trips with BEGIN and COMMIT, each holding a pooled connection while every session of
 * a wave waited for one). Answers the wait (0: taken; > 0: ms until a session may open; -1: every slot is held),
 * the sessions the host allows and its patience. The statements are marked for the test that EXPLAINs them.
 */
export class Migration20261128070000_smtp_lease_acquire extends Migration {

  override name = 'Migration20261128070000_smtp_lease_acquire';

  override up(): void | Promise<void> {
    this.addSql(`create function smtp_lease_acquire(
  egress_in varchar, host_in varchar, connections_in int, id_in uuid, holder_in varchar, ttl_ms_in int, interval_ms_in int
) returns table (lease_wait_ms int, lease_allowed int, lease_patience varchar)
language plpgsql volatile as $body$
declare
  budget record;
  taken int;
begin
  -- lock:
  insert into smtp_host_budget as h (egress, host, allowed, next_open_at, paused_until, patience, updated_at)
  values ($1, $2, $3, clock_timestamp(), clock_timestamp(), 'unknown', clock_timestamp())
  on conflict (egress, host) do update set egress = h.egress
  returning least(h.allowed, $3) as allowed, h.patience as patience,
    ceil(greatest(0, extract(epoch from greatest(h.next_open_at, h.paused_until) - clock_timestamp()) * 1000))::int as wait_ms
  into budget;
  -- :lock
  if budget.wait_ms = 0 then
    -- slot:
    with live as (
      select count(*)::int as n from smtp_lease l where l.egress = $1 and l.host = $2 and l.expires_at > clock_timestamp()
    ), took as (
      insert into smtp_lease (id, egress, host, holder, expires_at)
      select $4, $1, $2, $5, clock_timestamp() + $6 * interval '1 millisecond' from live where live.n < budget.allowed
      returning smtp_lease.id
    ), opened as (
      update smtp_host_budget b set next_open_at = clock_timestamp() + $7 * interval '1 millisecond', updated_at = clock_timestamp()
      where b.egress = $1 and b.host = $2 and exists (select 1 from took)
    ), purged as (
      delete from smtp_lease l where l.egress = $1 and l.host = $2 and l.expires_at <= clock_timestamp()
    )
    select (select count(*) from took)::int
    into taken;
    -- :slot
    if taken <> 1 then budget.wait_ms := -1; end if;
  end if;
  return query select budget.wait_ms, budget.allowed, budget.patience::varchar;
end
$body$;`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop function smtp_lease_acquire(varchar, varchar, int, uuid, varchar, int, int);');
  }

}
