import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { useSession } from '../session.ts';
import { type Column, PagedTable, usePaged } from '../table.tsx';
import type { LedgerEntry, Me } from '../types.ts';
import { ErrorNote, useAction, when, words } from '../ui.tsx';

export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [mode, setMode] = useState<'in' | 'up'>('in');
  const { busy, error, run, setError } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const fields = Object.fromEntries(
      [...form.entries()].map(([k, v]) => [k, String(v)]).filter(([, v]) => v !== ''),
    );
    void run(async () =>
      onSignedIn(await post<Me>(mode === 'in' ? '/api/auth/login' : '/api/auth/signup', fields)),
    );
  };
  const switchTo = (next: 'in' | 'up') => {
    setMode(next);
    setError(null);
  };
  return (
    <section class="card narrow">
      <h1>{mode === 'in' ? 'Sign in' : 'Create an account'}</h1>
      <p>
        Verify email lists, find profiles and enrich leads.{' '}
        {mode === 'in' ? 'Sign in to your organization.' : 'An organization is created for you.'}
      </p>
      <form onSubmit={submit} key={mode}>
        {mode === 'up' && (
          <>
            <label>
              Organization name
              <input name="organizationName" required autoComplete="organization" />
            </label>
            <label>
              Your name
              <input name="name" autoComplete="name" />
            </label>
          </>
        )}
        <label>
          Email
          <input name="email" type="email" required autoComplete="email" />
        </label>
        <label>
          Password{mode === 'up' && ' (at least 10 characters)'}
          <input
            name="password"
            type="password"
            required
            minLength={mode === 'up' ? 10 : undefined}
            autoComplete={mode === 'up' ? 'new-password' : 'current-password'}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Please wait…' : mode === 'in' ? 'Sign in' : 'Create account'}
        </button>
      </form>
      <p>
        {mode === 'in' ? 'No account yet? ' : 'Already have an account? '}
        <button type="button" class="link" onClick={() => switchTo(mode === 'in' ? 'up' : 'in')}>
          {mode === 'in' ? 'Create one' : 'Sign in'}
        </button>
      </p>
    </section>
  );
}

const LEDGER_COLUMNS: Array<Column<LedgerEntry>> = [
  { header: 'When', cell: (entry) => when(entry.createdAt) },
  {
    header: 'Change',
    cell: (entry) => (entry.delta > 0 ? `+${entry.delta}` : entry.delta),
    numeric: true,
    tone: (entry) => (entry.delta < 0 ? 'neg' : 'pos'),
  },
  { header: 'Reason', cell: (entry) => words(entry.reason) },
  { header: 'For', cell: (entry) => (entry.refType ? words(entry.refType) : '—') },
];

export function AccountScreen() {
  const { me, refresh } = useSession();
  const ledger = usePaged<LedgerEntry>('/api/credits/ledger');
  return (
    <section>
      <h1>Account</h1>
      <dl class="facts">
        <dt>Organization</dt>
        <dd>{me.organization.name}</dd>
        <dt>Signed in as</dt>
        <dd>
          {me.user.name ? `${me.user.name} · ` : ''}
          {me.user.email}
        </dd>
        <dt>Credit balance</dt>
        <dd data-testid="account-balance">{me.organization.creditBalance} credits</dd>
      </dl>
      <p class="hint">
        Credits pay for enrichment: 1 per verified work or personal email, 2 per verified phone. Paid email
        verification (provider fill) is billed per email in dollars. Credits are granted by your operator.
      </p>
      <h2>
        Credit ledger{' '}
        <button
          type="button"
          onClick={() => {
            ledger.reload();
            void refresh();
          }}
        >
          Refresh
        </button>
      </h2>
      <ErrorNote error={ledger.error} />
      <PagedTable
        paged={ledger}
        what="the ledger"
        columns={LEDGER_COLUMNS}
        rowKey={(entry) => entry.id}
        empty="No credit movements yet. Grants and enrichment charges will be listed here."
      />
    </section>
  );
}
