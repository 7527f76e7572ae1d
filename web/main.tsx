import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, get, onUnauthorized } from './api.ts';
import { type ConnectionState, connectionState, onConnectionChange, onRecovered, retryNow } from './connection.ts';
import { clock, credits } from './format.ts';
import { AccountScreen, SignIn } from './screens/account.tsx';
import { EnrichmentScreen } from './screens/enrichment.tsx';
import { JoinScreen } from './screens/join.tsx';
import { ListScreen, ListsScreen } from './screens/lists.tsx';
import { MembersScreen } from './screens/members.tsx';
import { ScrapeJobScreen, ScrapeScreen } from './screens/scrape.tsx';
import { SettingsScreen } from './screens/settings.tsx';
import { UsageScreen } from './screens/usage.tsx';
import { VerificationJobScreen, VerificationScreen } from './screens/verification.tsx';
import type { Me } from './types.ts';
import { LoadFailed, Loading } from './ui.tsx';
import { SessionContext } from './session.ts';

const APP_NAME = 'Lead Enrichment';

/** Hash routing: `#/lists/<id>` and the like, so every page path the server sees is `/`. */
function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

/**
 * After a navigation: the page's title from its heading ("Q4 prospects · Lead Enrichment"), and the focus on that
 * heading, so a screen reader starts at the new page. The heading may come after the page's data: it is waited for.
 */
function usePageHeading(hash: string) {
  useEffect(() => {
    const main = document.getElementById('main');
    if (!main) return;
    let focused = false;
    const apply = () => {
      const heading = main.querySelector('h1');
      if (!heading) return;
      document.title = `${heading.textContent?.trim() || APP_NAME} · ${APP_NAME}`;
      // Only while nobody has put the focus elsewhere since the navigation (a field, a button).
      const active = document.activeElement;
      if (!focused && (!active || active === document.body || active === main || active.tagName === 'A')) {
        heading.tabIndex = -1;
        heading.focus({ preventScroll: false });
      }
      focused = true;
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(main, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [hash]);
}

/** "Connection lost — retrying": while the service cannot be reached, with the time of the next try. */
function ConnectionBar() {
  const [state, setState] = useState<ConnectionState>(connectionState());
  useEffect(() => onConnectionChange(setState), []);
  if (!state.lost) return null;
  return (
    <div class="connection-lost" role="alert" data-testid="connection-lost">
      <strong>Connection lost — retrying.</strong>{' '}
      {state.nextTryAt && <>Next try at {clock(new Date(state.nextTryAt))}. </>}
      What you see may be out of date; it reloads by itself once the service answers.{' '}
      <button type="button" onClick={retryNow}>
        Retry now
      </button>
    </div>
  );
}

const routeOf = (hash: string) => hash.replace(/^#\/?/, '').split('?')[0]!.split('/').filter(Boolean);

const SECTIONS = [
  ['lists', 'Lists'],
  ['verification', 'Verification'],
  ['scrape', 'Scrape'],
  ['enrichment', 'Enrichment'],
  ['settings', 'Settings'],
  ['account', 'Account'],
] as const;
/** Pages that belong to a section of the menu without its name in their address. */
const SECTION_OF: Record<string, string> = { usage: 'account' };

function SandboxBanner() {
  const [pieces, setPieces] = useState<string[]>([]);
  useEffect(() => {
    // /readyz answers 503 while a dependency is down; its body still names the sandbox.
    fetch('/readyz')
      .then((res) => res.json() as Promise<{ sandbox?: string[] }>)
      .then((ready) => setPieces(ready.sandbox ?? []))
      .catch(() => undefined);
  }, []);
  if (pieces.length === 0) return null;
  return (
    <div class="sandbox" role="note">
      <strong>Sandbox mode.</strong> This service runs with stand-ins for {pieces.join(', ')}
      <span class="long">
        : the data they return is made up. Set the real provider keys to leave the sandbox
      </span>
      .
    </div>
  );
}

function Screen({ route }: { route: string[] }) {
  const [section, id] = route;
  switch (section) {
    case undefined:
    case 'lists':
      return id ? <ListScreen listId={id} /> : <ListsScreen />;
    case 'verification':
      return id ? <VerificationJobScreen jobId={id} /> : <VerificationScreen />;
    case 'scrape':
      return id ? <ScrapeJobScreen jobId={id} /> : <ScrapeScreen />;
    case 'enrichment':
      return <EnrichmentScreen jobId={id} />;
    case 'settings':
      return id === 'members' ? <MembersScreen /> : <SettingsScreen />;
    case 'account':
      return <AccountScreen />;
    case 'usage':
      return <UsageScreen />;
    case 'join':
      return <JoinScreen />;
    default:
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            There is no page at this address. Go to <a href="#/lists">your lists</a>.
          </p>
        </section>
      );
  }
}

function App() {
  const hash = useHash();
  const route = routeOf(hash);
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  // Only a 401 means "signed out": a service that cannot be reached says so, with a retry, and is asked again.
  const [sessionError, setSessionError] = useState<unknown>(null);
  const refresh = useCallback(async () => {
    try {
      setMe(await get<Me>('/api/auth/me'));
      setSessionError(null);
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.status === 401) setMe(null);
      else setSessionError(failure);
    }
  }, []);
  useEffect(() => {
    void refresh();
    const stopRecovery = onRecovered(() => void refresh());
    const stopUnauthorized = onUnauthorized(() => setMe(null));
    return () => {
      stopRecovery();
      stopUnauthorized();
    };
  }, [refresh]);
  usePageHeading(`${hash}|${me === undefined ? 'loading' : me === null ? 'out' : 'in'}`);

  const signOut = async () => {
    await api('POST', '/api/auth/logout').catch(() => undefined);
    setMe(null);
    location.hash = '#/lists';
  };
  const section = SECTION_OF[route[0] ?? ''] ?? route[0] ?? 'lists';

  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          // The hash is the route: move the focus instead of navigating to "#main".
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <SandboxBanner />
      <ConnectionBar />
      {me === undefined ? (
        <main id="main">
          {sessionError ? (
            <LoadFailed error={sessionError} what="your session" onRetry={() => void refresh()} />
          ) : (
            <Loading what="your session" />
          )}
        </main>
      ) : me === null ? (
        <main id="main" class="signin" tabIndex={-1}>
          {route[0] === 'join' ? <JoinScreen onJoined={setMe} /> : <SignIn onSignedIn={setMe} />}
        </main>
      ) : (
        <SessionContext.Provider value={{ me, refresh }}>
          <header class="top">
            <a class="brand" href="#/lists">
              {APP_NAME}
            </a>
            <div class="who">
              <span class="org" data-testid="org-name">
                {me.organization.name}
              </span>
              <a href="#/account" class="balance" data-testid="balance">
                {credits(me.organization.creditBalance)}
              </a>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </div>
            <nav aria-label="Sections">
              {SECTIONS.map(([key, label]) => (
                <a key={key} href={`#/${key}`} aria-current={section === key ? 'page' : undefined}>
                  {label}
                </a>
              ))}
            </nav>
          </header>
          <main id="main" tabIndex={-1}>
            {/* Keyed by the whole address: every navigation starts the screen afresh, with its query (?list=). */}
            <Screen key={hash} route={route} />
          </main>
        </SessionContext.Provider>
      )}
    </>
  );
}

render(<App />, document.getElementById('app')!);
