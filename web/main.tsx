import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, get, onUnauthorized } from './api.ts';
import { AccountScreen, SignIn } from './screens/account.tsx';
import { EnrichmentScreen } from './screens/enrichment.tsx';
import { ListScreen, ListsScreen } from './screens/lists.tsx';
import { ScrapeJobScreen, ScrapeScreen } from './screens/scrape.tsx';
import { SettingsScreen } from './screens/settings.tsx';
import { VerificationJobScreen, VerificationScreen } from './screens/verification.tsx';
import type { Me } from './types.ts';
import { Loading } from './ui.tsx';
import { SessionContext } from './session.ts';

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

const routeOf = (hash: string) => hash.replace(/^#\/?/, '').split('?')[0]!.split('/').filter(Boolean);

const SECTIONS = [
  ['lists', 'Lists'],
  ['verification', 'Verification'],
  ['scrape', 'Scrape'],
  ['enrichment', 'Enrichment'],
  ['settings', 'Settings'],
  ['account', 'Account'],
] as const;

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
      <strong>Sandbox mode.</strong> This service runs with stand-ins for {pieces.join(', ')}: the data they
      return is made up. Set the real provider keys to leave the sandbox.
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
      return <SettingsScreen />;
    case 'account':
      return <AccountScreen />;
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
  const refresh = useCallback(async () => {
    try {
      setMe(await get<Me>('/api/auth/me'));
    } catch {
      setMe(null);
    }
  }, []);
  useEffect(() => {
    void refresh();
    return onUnauthorized(() => setMe(null));
  }, [refresh]);

  const signOut = async () => {
    await api('POST', '/api/auth/logout').catch(() => undefined);
    setMe(null);
    location.hash = '#/lists';
  };

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
      {me === undefined ? (
        <main id="main">
          <Loading what="your session" />
        </main>
      ) : me === null ? (
        <main id="main" class="signin">
          <SignIn onSignedIn={setMe} />
        </main>
      ) : (
        <SessionContext.Provider value={{ me, refresh }}>
          <header class="top">
            <a class="brand" href="#/lists">
              Lead Enrichment
            </a>
            <nav aria-label="Sections">
              {SECTIONS.map(([key, label]) => (
                <a
                  key={key}
                  href={`#/${key}`}
                  aria-current={(route[0] ?? 'lists') === key ? 'page' : undefined}
                >
                  {label}
                </a>
              ))}
            </nav>
            <div class="who">
              <span class="org" data-testid="org-name">
                {me.organization.name}
              </span>
              <a href="#/account" class="balance" data-testid="balance">
                {me.organization.creditBalance} credits
              </a>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </div>
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
