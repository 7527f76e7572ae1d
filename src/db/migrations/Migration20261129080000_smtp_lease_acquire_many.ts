import { Migration } from '@mikro-orm/migrations';

/**
 * Session leases for many sessions in one round trip: smtp_lease_acquire for each, in one transaction. When a wave
 * of sessions ends, a hundred releases and a hundred acquires came at once, each a statement and a commit of its
 * own on the budget's pool, and each new session waited 20–60 ms for its lease. The calls go in (egress, host)
 * order, so two processes' batches lock the hosts' budget rows in the same order and never wait on each other in a
 * circle; two sessions of one host in a batch count each other's lease, as calls one after the other did. Answers
 * each call's index (1-based) with what smtp_lease_acquire answered it.
 */
export class Migration20261129080000_smtp_lease_acquire_many extends Migration {

  override name = 'Migration20261129080000_smtp_lease_acquire_many';

  override up(): void | Promise<void> {
    this.addSql(`create function smtp_lease_acquire_many(
  egress_in varchar[], host_in varchar[], connections_in int[], id_in uuid[], holder_in varchar, ttl_ms_in int, interval_ms_in int[]
) returns table (lease_index int, lease_wait_ms int, lease_allowed int, lease_patience varchar)
language plpgsql volatile as $body$
declare
  k int;
begin
  for k in select u.n from unnest(egress_in, host_in) with ordinality as u(e, h, n) order by u.e, u.h, u.n loop
    return query select k, a.lease_wait_ms, a.lease_allowed, a.lease_patience
      from smtp_lease_acquire(egress_in[k], host_in[k], connections_in[k], id_in[k], holder_in, ttl_ms_in, interval_ms_in[k]) a;
  end loop;
end
$body$;`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop function smtp_lease_acquire_many(varchar[], varchar[], int[], uuid[], varchar, int, int[]);');
  }

}
