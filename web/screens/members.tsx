// Settings → Members (CONTRACT §15): who shares the organization's lists, an invite link shown once, removal.
import { useState } from 'preact/hooks';
import { api, get, post } from '../api.ts';
import { when } from '../format.ts';
import { isOwner, useSession } from '../session.ts';
import { type Column, DataTable } from '../table.tsx';
import type { Invite, Member } from '../types.ts';
import { ConfirmButton, ErrorNote, LoadFailed, Loading, useAction, useLoad } from '../ui.tsx';
import { SettingsNav } from './settings.tsx';

const MEMBER_COLUMNS: Array<Column<Member>> = [
  { header: 'Name', cell: (m) => m.name ?? '—' },
  { header: 'Email', cell: (m) => m.email },
  { header: 'Role', cell: (m) => (m.role === 'owner' ? 'Owner' : 'Member') },
  { header: 'Joined', cell: (m) => when(m.createdAt) },
];

export function MembersScreen() {
  const { me } = useSession();
  if (!isOwner(me))
    return (
      <section>
        <h1>Members</h1>
        <SettingsNav />
        <p>Only the organization's owner manages its members and invites.</p>
      </section>
    );
  return <Members />;
}

function Members() {
  const { me } = useSession();
  const members = useLoad(() => get<{ data: Member[] }>('/api/organization/members'), []);
  const action = useAction();
  const [invite, setInvite] = useState<Invite | null>(null);
  const [copied, setCopied] = useState(false);
  const createInvite = () =>
    void action.run(async () => {
      setCopied(false);
      setInvite(await post<Invite>('/api/organization/invites', {}));
    });
  const remove = (userId: string) =>
    void action.run(async () => {
      await api('DELETE', `/api/organization/members/${userId}`);
      members.reload();
    });
  // The link as this browser reaches the dashboard (the service's own origin may be behind a proxy).
  const link = invite ? new URL(invite.inviteUrl, location.origin).href : '';
  const copy = () =>
    void action.run(async () => {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    });
  return (
    <section>
      <h1>Members</h1>
      <SettingsNav />
      <div class="card">
        <h2>Invite a teammate</h2>
        <p class="hint">
          An invite is a link that works once, for 7 days. Whoever opens it creates an account in this organization
          as a member: members work with the lists, jobs and credits, but do not manage keys, providers, webhooks or
          members.
        </p>
        <button type="button" class="primary" onClick={createInvite} disabled={action.busy}>
          Create an invite link
        </button>
        {invite && (
          <div class="secret" role="status" data-testid="invite">
            <p>
              <strong>Send this link to your teammate now: it is not shown again.</strong> It expires{' '}
              {when(invite.expiresAt)}.
            </p>
            <code data-testid="invite-link">{link}</code>{' '}
            <div class="actions">
              <button type="button" onClick={copy}>
                {copied ? 'Copied' : 'Copy link'}
              </button>
              <button type="button" onClick={() => setInvite(null)}>
                Done
              </button>
            </div>
          </div>
        )}
        <ErrorNote error={action.error} />
      </div>
      <h2>People in {me.organization.name}</h2>
      {!members.data ? (
        members.error ? (
          <LoadFailed error={members.error} what="the members" onRetry={members.reload} />
        ) : (
          <Loading what="the members" />
        )
      ) : (
        <DataTable
          columns={[
            ...MEMBER_COLUMNS,
            {
              header: null,
              cell: (m) =>
                m.id === me.user.id ? (
                  <span class="hint">you</span>
                ) : (
                  <ConfirmButton
                    label="Remove"
                    confirm={`Remove ${m.email} now`}
                    onConfirm={() => remove(m.id)}
                    disabled={action.busy}
                  />
                ),
            },
          ]}
          rows={members.data.data}
          rowKey={(m) => m.id}
          testId="members"
        />
      )}
    </section>
  );
}
