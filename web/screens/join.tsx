// The page an invite link opens (`#/join?token=…`, the `inviteUrl` of CONTRACT §15): sign up into the inviting
// organization as a member.
import { useContext } from 'preact/hooks';
import { SessionContext, useSession } from '../session.ts';
import type { Me } from '../types.ts';
import { hashParam } from '../ui.tsx';
import { AccountForm } from './account.tsx';

export function JoinScreen({ onJoined }: { onJoined?: (me: Me) => void }) {
  const session = useContext(SessionContext);
  const token = hashParam('token');
  if (session) return <SignedInAlready />;
  return (
    <section class="card narrow">
      <h1>Join your team</h1>
      {!token ? (
        <p class="error" role="alert">
          This invite link has no token. Ask the person who invited you for the whole link.
        </p>
      ) : (
        <>
          <p>
            You were invited to an organization's lead lists. Create your account to join it: the organization's
            lists, jobs and credits are shared with you.
          </p>
          <AccountForm mode="up" inviteToken={token} onDone={(me) => {
              location.hash = '#/lists';
              onJoined?.(me);
            }} />
        </>
      )}
    </section>
  );
}

function SignedInAlready() {
  const { me } = useSession();
  return (
    <section>
      <h1>Join your team</h1>
      <p>
        You are signed in as {me.user.email} in {me.organization.name}. To accept this invite with a new account,
        sign out first, then open the link again.
      </p>
    </section>
  );
}
