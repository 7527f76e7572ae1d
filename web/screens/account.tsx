import { useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { credits, money, when } from '../format.ts';
import { useSession } from '../session.ts';
import { type Column, PagedTable, usePaged } from '../table.tsx';
import type { LedgerEntry, Me, UsageMonth } from '../types.ts';
import { ErrorNote, FieldError, invalidField, useAction, useLoad } from '../ui.tsx';

const PASSWORD_MIN = 10;

/** The fields a sign-up or sign-in sends, checked before sending where the browser cannot say it in words. */
function checkAccountFields(fields: Record<string, string>, signingUp: boolean) {
  if (!fields.email?.includes('@')) throw invalidField('email', 'is not a valid email address');
  if (signingUp && (fields.password ?? '').length < PASSWORD_MIN)
    throw invalidField('password', `needs at least ${PASSWORD_MIN} characters`);
}

/**
 * The account form: sign in, or sign up (a new organization, or with `inviteToken` a place in an existing one).
 * Problems are shown under their field.
 */
export function AccountForm({
  mode,
  inviteToken,
  onDone,
}: {
  mode: 'in' | 'up';
  inviteToken?: string;
  onDone: (me: Me) => void;
}) {
  const { busy, error, run } = useAction();
  const joining = inviteToken !== undefined;
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const fields = Object.fromEntries(
      [...form.entries()].map(([k, v]) => [k, String(v).trim()]).filter(([, v]) => v !== ''),
    ) as Record<string, string>;
    if (joining) fields.inviteToken = inviteToken;
    void run(async () => {
      checkAccountFields(fields, mode === 'up');
      onDone(await post<Me>(mode === 'in' ? '/api/auth/login' : '/api/auth/signup', fields));
    });
  };
  const described = (field: string) => (error ? `${field}-error` : undefined);
  return (
    <form onSubmit={submit} noValidate>
      {mode === 'up' && !joining && (
        <label>
          Organization name
          <input name="organizationName" required autoComplete="organization" aria-describedby={described('organizationName')} />
          <FieldError error={error} field="organizationName" />
        </label>
      )}
      {mode === 'up' && (
        <label>
          Your name
          <input name="name" autoComplete="name" aria-describedby={described('name')} />
          <FieldError error={error} field="name" />
        </label>
      )}
      <label>
        Email
        <input name="email" type="email" required autoComplete="email" aria-describedby={described('email')} />
        <FieldError error={error} field="email" />
      </label>
      <label>
        Password{mode === 'up' && ` (at least ${PASSWORD_MIN} characters)`}
        <input
          name="password"
          type="password"
          required
          autoComplete={mode === 'up' ? 'new-password' : 'current-password'}
          aria-describedby={described('password')}
        />
        <FieldError error={error} field="password" />
      </label>
      <ErrorNote error={error} fields={['organizationName', 'name', 'email', 'password']} />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Please wait…' : mode === 'in' ? 'Sign in' : joining ? 'Join' : 'Create account'}
      </button>
    </form>
  );
}

export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [mode, setMode] = useState<'in' | 'up'>('in');
  return (
    <section class="card narrow">
      <h1>{mode === 'in' ? 'Sign in' : 'Create an account'}</h1>
      <p>
        Verify email lists, find profiles and enrich leads.{' '}
        {mode === 'in' ? 'Sign in to your organization.' : 'An organization is created for you.'}
      </p>
      <AccountForm key={mode} mode={mode} onDone={onSignedIn} />
      <p>
        {mode === 'in' ? 'No account yet? ' : 'Already have an account? '}
        <button type="button" class="link" onClick={() => setMode(mode === 'in' ? 'up' : 'in')}>
          {mode === 'in' ? 'Create one' : 'Sign in'}
        </button>
      </p>
    </section>
  );
}

export const REF_LABEL: Record<string, string> = {
  enrichment_job: 'List enrichment',
  enrichment_request: 'One profile',
  find_email: 'Email finder',
};

export const LEDGER_COLUMNS: Array<Column<LedgerEntry>> = [
  { header: 'When', cell: (entry) => when(entry.createdAt) },
  {
    header: 'Change',
    cell: (entry) => (entry.delta > 0 ? `+${credits(entry.delta)}` : credits(entry.delta)),
    numeric: true,
    tone: (entry) => (entry.delta < 0 ? 'neg' : 'pos'),
  },
  { header: 'Reason', cell: (entry) => entry.reason },
  { header: 'For', cell: (entry) => (entry.refType ? (REF_LABEL[entry.refType] ?? entry.refType) : '—') },
];

/** Spend to date: the credits and dollars of every month `/api/usage` reports (the last 12 by default). */
export function SpendToDate() {
  const usage = useLoad(() => get<{ months: UsageMonth[] }>('/api/usage'), []);
  if (!usage.data) return usage.error ? <p class="hint">Spend to date is not available: {String((usage.error as Error).message)}</p> : null;
  const creditsSpent = usage.data.months.reduce((sum, m) => sum + m.credits.total, 0);
  const dollars = usage.data.months.reduce((sum, m) => sum + m.verificationDollars, 0);
  return (
    <>
      <dt>Spent in the last 12 months</dt>
      <dd data-testid="spend-to-date">
        {credits(creditsSpent)} and {money(dollars)} of provider verification ·{' '}
        <a href="#/usage">Usage by month</a>
      </dd>
    </>
  );
}

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
          <span class="tag">{me.user.role}</span>
        </dd>
        <dt>Credit balance</dt>
        <dd data-testid="account-balance">{credits(me.organization.creditBalance)}</dd>
        <SpendToDate />
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
