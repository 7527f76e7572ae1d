// "Find an email" (CONTRACT §14): a person's work address from their name and company domain, found by the
// service's own mail-server checks. A find that must wait out greylisting answers 202 and is read again until done.
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { counted, credits, num } from '../format.ts';
import { useSession } from '../session.ts';
import type { FoundEmail } from '../types.ts';
import { ErrorNote, FieldError, invalidField, Status, useAction } from '../ui.tsx';
import { CREDIT_PRICES } from '../../src/domain/enrichment.ts';

const DOMAIN = /^(?!-)[a-z0-9-]+(\.[a-z0-9-]+)+$/i;
const POLL_MS = 3000;

/** "https://www.acme.com/about" → "acme.com": people paste websites. */
const domainOf = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#].*$/, '');

const isFound = (answer: FoundEmail | { findId: string }): answer is FoundEmail => !('findId' in answer);

export function FindEmail() {
  const { refresh } = useSession();
  const action = useAction();
  const [found, setFound] = useState<FoundEmail | null>(null);
  const [waiting, setWaiting] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const follow = (findId: string) => {
    timer.current = setTimeout(() => {
      get<FoundEmail | { findId: string }>(`/api/enrichment/find-email/${findId}`).then(
        (answer) => {
          if (!isFound(answer)) return follow(findId);
          setWaiting(null);
          setFound(answer);
          void refresh();
        },
        // A lost connection is shown by the bar; keep asking.
        () => follow(findId),
      );
    }, POLL_MS);
  };

  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const firstName = String(data.get('firstName') ?? '').trim();
    const lastName = String(data.get('lastName') ?? '').trim();
    const domain = domainOf(String(data.get('domain') ?? ''));
    clearTimeout(timer.current);
    void action.run(async () => {
      setFound(null);
      setWaiting(null);
      if (!firstName) throw invalidField('firstName', 'is required');
      if (!lastName) throw invalidField('lastName', 'is required');
      if (!DOMAIN.test(domain)) throw invalidField('domain', 'is not a domain (acme.com)');
      const answer = await post<FoundEmail | { findId: string }>('/api/enrichment/find-email', {
        firstName,
        lastName,
        domain,
      });
      if (isFound(answer)) {
        setFound(answer);
        void refresh();
      } else {
        setWaiting(answer.findId);
        follow(answer.findId);
      }
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Find an email" noValidate data-testid="find-email">
      <h2>Find an email</h2>
      <p class="hint">
        From a person’s name and company domain, the service asks the company’s mail server which address exists.{' '}
        {credits(CREDIT_PRICES.workEmail)} only when an address is found Valid; a guess on a domain that accepts every
        address, or nothing found, is free.
      </p>
      <div class="inline-fields">
        <label>
          First name
          <input name="firstName" required autoComplete="off" />
          <FieldError error={action.error} field="firstName" />
        </label>
        <label>
          Last name
          <input name="lastName" required autoComplete="off" />
          <FieldError error={action.error} field="lastName" />
        </label>
        <label>
          Company domain
          <input name="domain" required placeholder="acme.com" autoComplete="off" />
          <FieldError error={action.error} field="domain" />
        </label>
        <button type="submit" class="primary" disabled={action.busy || waiting !== null}>
          {action.busy ? 'Searching…' : 'Find'}
        </button>
      </div>
      <ErrorNote error={action.error} fields={['firstName', 'lastName', 'domain']} />
      {waiting && (
        <p role="status">
          The mail server asked to be asked again later (greylisting): the search goes on, and the answer shows
          here.
        </p>
      )}
      {found && <FoundView found={found} />}
    </form>
  );
}

function FoundView({ found }: { found: FoundEmail }) {
  return (
    <div role="status" data-testid="found-email">
      {found.email ? (
        <p>
          <strong>{found.email}</strong> <Status value={found.result} />
          {found.result === 'Catch-All' && found.catchAllScore !== null && (
            <span class="hint">
              {' '}
              the domain accepts every address: a best guess, scored {num(found.catchAllScore)} of 10
            </span>
          )}
        </p>
      ) : (
        <p>No address was found for this person at this domain.</p>
      )}
      {found.candidatesTried.length > 0 && (
        <details>
          <summary>{counted(found.candidatesTried.length, 'address', 'addresses')} asked</summary>
          <ul class="candidates" data-testid="candidates">
            {found.candidatesTried.map((c) => (
              <li key={c.email}>
                <code>{c.email}</code> <Status value={c.result} />{' '}
                <span class="hint">
                  {c.via === 'directory' ? 'Microsoft directory' : 'mail server'}: {c.reply}
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
      <p class="hint">Credits used: {num(found.creditsUsed)}.</p>
    </div>
  );
}
