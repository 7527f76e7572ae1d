import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, get, post } from '../api.ts';
import { ALL_SCOPES } from '../../src/domain/scopes.ts';
import { WEBHOOK_EVENTS } from '../../src/domain/webhook-events.ts';
import { type Column, DataTable, PagedTable, usePaged } from '../table.tsx';
import type { ApiKey, Delivery, Endpoint, ProviderSetting } from '../types.ts';
import { EgressPanel } from './egress-panel.tsx';
import { num, when, words } from '../format.ts';
import { isOwner, useSession } from '../session.ts';
import {
  ConfirmButton,
  Empty,
  ErrorNote,
  FieldError,
  invalidField,
  LoadFailed,
  Loading,
  Notice,
  useAction,
  useLoad,
} from '../ui.tsx';

/** Settings' own pages: the organization's settings and its members. */
export function SettingsNav() {
  const current = location.hash.startsWith('#/settings/members') ? 'members' : 'settings';
  return (
    <nav class="subnav" aria-label="Settings pages">
      <a href="#/settings" aria-current={current === 'settings' ? 'page' : undefined}>
        Keys, providers and webhooks
      </a>
      <a href="#/settings/members" aria-current={current === 'members' ? 'page' : undefined}>
        Members
      </a>
    </nav>
  );
}

export function SettingsScreen() {
  const { me } = useSession();
  return (
    <section>
      <h1>Settings</h1>
      <SettingsNav />
      {isOwner(me) ? (
        <>
          <Providers />
          <ApiKeys />
          <Webhooks />
        </>
      ) : (
        <p class="notice" data-testid="member-settings">
          API keys, enrichment providers, webhooks and members are managed by your organization's owner. Ask
          them for a key or a change.
        </p>
      )}
      <EgressPanel />
    </section>
  );
}

const PROVIDER_NAMES: Record<string, string> = {
  pdl: 'People Data Labs',
  hunter: 'Hunter',
  lusha: 'Lusha',
  finder: 'Email finder (this service)',
};
const KIND_LABEL: Record<string, string> = {
  person_enrichment: 'people data',
  email_discovery_verification: 'email discovery and verification',
  business_email_phone: 'business emails and phones',
  finder: 'finds work emails by asking the mail servers (free unless found valid)',
};

function Providers() {
  const providers = useLoad(
    () => get<{ providers: ProviderSetting[] }>('/api/settings/enrichment-providers'),
    [],
  );
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const update = (change: { provider: string } & Record<string, unknown>, done: string) =>
    void action.run(async () => {
      setSaved(null);
      // The switch moves at once (a controlled checkbox would otherwise spring back until the answer comes).
      if (typeof change.enabled === 'boolean' && providers.data) {
        const enabled = change.enabled;
        providers.setData({
          providers: providers.data.providers.map((p) =>
            p.provider === change.provider ? { ...p, enabled } : p,
          ),
        });
      }
      try {
        providers.setData(await api('PUT', '/api/settings/enrichment-providers', { providers: [change] }));
      } catch (failure) {
        providers.reload(); // back to what is stored
        throw failure;
      }
      setSaved(done);
    });
  const saveKey = (provider: string) => (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const apiKey = String(new FormData(form).get('apiKey')).trim();
    if (!apiKey) return;
    update({ provider, apiKey }, `The ${PROVIDER_NAMES[provider] ?? provider} key is stored.`);
    form.reset();
  };
  const list = [...(providers.data?.providers ?? [])].sort((a, b) => a.priority - b.priority);
  return (
    <div class="card">
      <h2>Enrichment providers</h2>
      <p class="hint">
        Enrichment asks the enabled providers in this order until one has the data. Keys you store are
        encrypted and never shown again; without one, the platform’s key is used when there is one.
      </p>
      <ErrorNote error={action.error} />
      {saved && <Notice>{saved}</Notice>}
      {!providers.data ? (
        providers.error ? (
          <LoadFailed error={providers.error} what="the providers" onRetry={providers.reload} />
        ) : (
          <Loading what="providers" />
        )
      ) : (
        <ol class="providers">
          {list.map((p, i) => (
            <li key={p.provider} data-testid={`provider-${p.provider}`}>
              <div class="provider-head">
                <strong>{PROVIDER_NAMES[p.provider] ?? p.provider}</strong>{' '}
                <span class="hint">{KIND_LABEL[p.kind] ?? words(p.kind)}</span>
                <label class="choice">
                  <input
                    type="checkbox"
                    checked={p.enabled}
                    disabled={action.busy}
                    onChange={() =>
                      update(
                        { provider: p.provider, enabled: !p.enabled },
                        p.enabled
                          ? `${PROVIDER_NAMES[p.provider]} is off.`
                          : `${PROVIDER_NAMES[p.provider]} is on.`,
                      )
                    }
                  />
                  Enabled
                </label>
                <button
                  type="button"
                  disabled={i === 0 || action.busy}
                  onClick={() => update({ provider: p.provider, priority: i }, 'Order saved.')}
                  aria-label={`Move ${PROVIDER_NAMES[p.provider]} up`}
                >
                  ↑ Up
                </button>
                <button
                  type="button"
                  disabled={i === list.length - 1 || action.busy}
                  onClick={() => update({ provider: p.provider, priority: i + 2 }, 'Order saved.')}
                  aria-label={`Move ${PROVIDER_NAMES[p.provider]} down`}
                >
                  ↓ Down
                </button>
              </div>
              {/* The service's own finder (CONTRACT §14) takes no key. */}
              {(p.provider as string) !== 'finder' && (
                <form class="inline" onSubmit={saveKey(p.provider)}>
                  <label>
                    Your own API key
                    <input
                      name="apiKey"
                      type="password"
                      autoComplete="off"
                      placeholder={
                        p.hasApiKey
                          ? 'stored (enter a new one to replace it)'
                          : p.hasPlatformKey
                            ? 'none: the platform key is used'
                            : 'none'
                      }
                    />
                  </label>
                  <button type="submit" disabled={action.busy}>
                    Save key
                  </button>
                  {p.hasApiKey && (
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() => update({ provider: p.provider, apiKey: null }, 'The key is removed.')}
                    >
                      Remove key
                    </button>
                  )}
                </form>
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

const KEY_COLUMNS: Array<Column<ApiKey>> = [
  { header: 'Name', cell: (key) => key.name },
  { header: 'Starts with', cell: (key) => <code>{key.start}…</code> },
  { header: 'Scopes', cell: (key) => key.scopes.join(', ') },
  { header: 'Expires', cell: (key) => (key.expiresAt ? when(key.expiresAt) : 'never') },
  { header: 'Last used', cell: (key) => when(key.lastUsedAt) },
];

/** A secret the service shows only in its creation answer, until the user says it is copied. */
function ShownOnce({
  secret,
  testId,
  onCopied,
  children,
}: {
  secret: string;
  testId: string;
  onCopied: () => void;
  children: ComponentChildren;
}) {
  return (
    <div class="secret" role="status" data-testid={testId}>
      <p>
        <strong>{children}</strong>
      </p>
      <code>{secret}</code>{' '}
      <button type="button" onClick={onCopied}>
        I have copied it
      </button>
    </div>
  );
}

function ApiKeys() {
  const keys = useLoad(() => get<{ data: ApiKey[] }>('/api/api-keys'), []);
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const expiry = String(data.get('expiresAt') ?? '');
    void action.run(async () => {
      if (!String(data.get('name') ?? '').trim()) throw invalidField('name', 'is required');
      if (data.getAll('scopes').length === 0) throw invalidField('scopes', 'choose at least one');
      const key = await post<ApiKey & { key: string }>('/api/api-keys', {
        name: data.get('name'),
        scopes: data.getAll('scopes'),
        ...(expiry ? { expiresAt: new Date(`${expiry}T23:59:59`).toISOString() } : {}),
      });
      setSecret(key.key);
      form.reset();
      keys.reload();
    });
  };
  const revoke = (id: string) =>
    void action.run(async () => {
      await api('DELETE', `/api/api-keys/${id}`);
      keys.reload();
    });
  return (
    <div class="card">
      <h2>API keys</h2>
      <p class="hint">
        For integrations (a CRM, a dialer): each key acts for this organization with the scopes you give it.
        See the API docs at <a href="/docs">/docs</a>.
      </p>
      <form onSubmit={create} aria-label="New API key" noValidate>
        <label>
          Key name
          <input name="name" required maxLength={200} />
          <FieldError error={action.error} field="name" />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          <FieldError error={action.error} field="scopes" />
          <div class="checks">
            {ALL_SCOPES.map((scope) => (
              <label key={scope} class="choice">
                <input type="checkbox" name="scopes" value={scope} />
                {scope}
              </label>
            ))}
          </div>
        </fieldset>
        <label>
          Expires on (optional)
          <input name="expiresAt" type="date" />
          <FieldError error={action.error} field="expiresAt" />
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Create key
        </button>
      </form>
      <ErrorNote error={action.error} fields={['name', 'scopes', 'expiresAt']} />
      {secret && (
        <ShownOnce secret={secret} testId="new-key" onCopied={() => setSecret(null)}>
          Copy this key now: it is not shown again.
        </ShownOnce>
      )}
      {!keys.data ? (
        keys.error ? (
          <LoadFailed error={keys.error} what="the API keys" onRetry={keys.reload} />
        ) : (
          <Loading what="API keys" />
        )
      ) : (
        <DataTable
          columns={[
            ...KEY_COLUMNS,
            {
              header: null,
              cell: (key) =>
                key.revokedAt ? (
                  `revoked ${when(key.revokedAt)}`
                ) : (
                  <ConfirmButton
                    label="Revoke"
                    confirm={`Revoke ${key.name} now`}
                    onConfirm={() => revoke(key.id)}
                  />
                ),
            },
          ]}
          rows={keys.data.data}
          rowKey={(key) => key.id}
          testId="keys"
          empty="No API key yet. Create one for each tool that calls the API."
        />
      )}
    </div>
  );
}

function Webhooks() {
  const endpoints = useLoad(() => get<{ data: Endpoint[] }>('/api/webhooks'), []);
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    void action.run(async () => {
      const url = String(data.get('url') ?? '').trim();
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
        throw invalidField('url', 'is not a web address: the webhook URL starts with https://');
      if (data.getAll('events').length === 0) throw invalidField('events', 'choose at least one');
      const endpoint = await post<Endpoint & { secret: string }>('/api/webhooks', {
        url: data.get('url'),
        events: data.getAll('events'),
        description: String(data.get('description') ?? '') || undefined,
      });
      setSecret(endpoint.secret);
      form.reset();
      endpoints.reload();
    });
  };
  const remove = (id: string) =>
    void action.run(async () => {
      await api('DELETE', `/api/webhooks/${id}`);
      endpoints.reload();
    });
  return (
    <div class="card">
      <h2>Webhooks</h2>
      <p class="hint">
        The service calls your URL when a job needs a decision, completes or fails, signed with the endpoint’s
        secret (Standard Webhooks).
      </p>
      <form onSubmit={create} aria-label="New webhook endpoint" noValidate>
        <label>
          Endpoint URL
          <input name="url" required placeholder="https://crm.example.com/hooks/leads" />
          <FieldError error={action.error} field="url" />
        </label>
        <fieldset>
          <legend>Events</legend>
          <FieldError error={action.error} field="events" />
          <div class="checks">
            <label class="choice">
              <input type="checkbox" name="events" value="*" />
              all events
            </label>
            {WEBHOOK_EVENTS.map((type) => (
              <label key={type} class="choice">
                <input type="checkbox" name="events" value={type} />
                {type}
              </label>
            ))}
          </div>
        </fieldset>
        <label>
          Description (optional)
          <input name="description" maxLength={500} />
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Add endpoint
        </button>
      </form>
      <ErrorNote error={action.error} fields={['url', 'events']} />
      {secret && (
        <ShownOnce secret={secret} testId="new-webhook" onCopied={() => setSecret(null)}>
          The signing secret, shown once: store it with your receiver.
        </ShownOnce>
      )}
      {!endpoints.data ? (
        endpoints.error ? (
          <LoadFailed error={endpoints.error} what="the webhook endpoints" onRetry={endpoints.reload} />
        ) : (
          <Loading what="webhook endpoints" />
        )
      ) : endpoints.data.data.length === 0 ? (
        <Empty>No endpoint yet. Add one to hear about finished jobs without polling.</Empty>
      ) : (
        <ul class="endpoints" data-testid="endpoints">
          {endpoints.data.data.map((endpoint) => (
            <li key={endpoint.id}>
              <div>
                <code>{endpoint.url}</code>{' '}
                {endpoint.disabledAt && (
                  <span class="tag">disabled {when(endpoint.disabledAt)} (the receiver answered 410)</span>
                )}
                <div class="hint">
                  {endpoint.events.join(', ')}
                  {endpoint.description ? ` · ${endpoint.description}` : ''}
                </div>
              </div>
              <div class="actions">
                <button
                  type="button"
                  aria-expanded={open === endpoint.id}
                  onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}
                >
                  {open === endpoint.id ? 'Hide deliveries' : 'Deliveries'}
                </button>
                <ConfirmButton
                  label="Delete"
                  confirm="Delete this endpoint"
                  onConfirm={() => remove(endpoint.id)}
                />
              </div>
              {open === endpoint.id && <Deliveries endpointId={endpoint.id} />}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const DELIVERY_COLUMNS: Array<Column<Delivery>> = [
  {
    header: 'Event',
    cell: (d) => (
      <>
        {d.type}
        <div class="hint">{when(d.createdAt)}</div>
      </>
    ),
  },
  { header: 'Status', cell: (d) => words(d.status) },
  { header: 'Attempts', cell: (d) => num(d.attempts), numeric: true },
  { header: 'Last answer', cell: (d) => d.lastStatusCode ?? d.lastError ?? '—' },
  { header: 'Next attempt', cell: (d) => when(d.nextAttemptAt) },
];

function Deliveries({ endpointId }: { endpointId: string }) {
  const deliveries = usePaged<Delivery>(`/api/webhooks/${endpointId}/deliveries`);
  const action = useAction();
  const [sent, setSent] = useState<string | null>(null);
  const retry = (id: string) =>
    void action.run(async () => {
      await post(`/api/webhooks/${endpointId}/deliveries/${id}/retry`);
      setSent(id);
      deliveries.reload();
    });
  return (
    <div>
      <div class="actions">
        <button type="button" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      {sent && <Notice>The delivery is sent again.</Notice>}
      <ErrorNote error={action.error} />
      <PagedTable
        paged={deliveries}
        what="deliveries"
        columns={[
          ...DELIVERY_COLUMNS,
          {
            header: null,
            cell: (d) => (
              <button type="button" disabled={action.busy} onClick={() => retry(d.id)}>
                Retry
              </button>
            ),
          },
        ]}
        rowKey={(d) => d.id}
        testId="deliveries"
        empty="No delivery yet: one is sent when a subscribed event happens."
      />
    </div>
  );
}
