import { get } from '../api.ts';
import type { Egress } from '../types.ts';
import { Empty, ErrorNote, Loading, useLoad } from '../ui.tsx';

const STATE_WORDS: Record<Egress['state'], string> = {
  ok: 'OK',
  degraded: 'Degraded: identity not aligned (still in use)',
  listed: 'Listed: not used until a check finds it clean',
  blocked: 'Blocked by a mail provider (quarantined)',
};

const yesNo = (value: boolean | null) => (value === null ? 'not checked' : value ? 'yes' : 'no');
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/**
 * The SMTP egresses as the worker answering this request sees them (CONTRACT §13): whether a blocklist lists
 * their address, whether their reverse DNS and HELO line up, and which mail providers refused them.
 */
export function EgressPanel() {
  const egress = useLoad(() => get<{ egress: Egress[] }>('/api/settings/egress'), []);
  return (
    <div class="card" data-testid="egress">
      <h2>Egress</h2>
      <p class="hint">
        The addresses verification connects from. A listed or blocked one gets no new work while another is left;
        a degraded one is used but may be refused more often.
      </p>
      <button type="button" onClick={egress.reload}>
        Refresh
      </button>
      {egress.error ? <ErrorNote error={egress.error} /> : null}
      {!egress.data ? (
        <Loading what="egress health" />
      ) : egress.data.egress.length === 0 ? (
        <Empty>No worker runs in the process that answered, so no egress was checked here.</Empty>
      ) : (
        <ul class="egress-list">
          {egress.data.egress.map((e) => (
            <li key={e.id}>
              <h3>
                {e.id} <span class={`status s-${e.state}`}>{STATE_WORDS[e.state]}</span>
              </h3>
              <dl>
                <dt>Public address</dt>
                <dd>{e.publicIp ?? 'unknown (set SMTP_EGRESS_PUBLIC_IPS)'}</dd>
                <dt>Blocklists</dt>
                <dd>
                  {e.dnsbl.length === 0
                    ? 'not checked'
                    : e.dnsbl.map((d) => `${d.zone}: ${d.answer === null ? 'not listed' : d.answer === 'unavailable' ? 'no answer' : d.answer.startsWith('127.0.0.') ? `listed (${d.answer})` : `refused to answer (${d.answer})`}`).join('; ')}
                </dd>
                <dt>Reverse DNS (PTR)</dt>
                <dd>{e.ptr ?? (e.checkedAt ? 'none' : 'not checked')}</dd>
                <dt>PTR confirmed by its A record</dt>
                <dd>{yesNo(e.fcrdns)}</dd>
                <dt>HELO aligned</dt>
                <dd>{yesNo(e.heloAligned)}</dd>
                <dt>Quarantines</dt>
                <dd>{e.quarantines.length === 0 ? 'none' : e.quarantines.map((q) => `${q.provider} until ${when(q.until)}`).join('; ')}</dd>
                <dt>Last check</dt>
                <dd>{when(e.checkedAt)}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
