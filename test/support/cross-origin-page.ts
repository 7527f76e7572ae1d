import type { Page } from 'playwright-core';

/** What the page saw of one API call: the status and parsed body, or the error `fetch` threw (CORS, network). */
export type Outcome = { status: number; body: any } | { error: string }; // eslint-disable-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field

/**
 * A minimal single-page client hosted on another origin (as a separately deployed dashboard would be): every call goes to the app at `?api=<origin>` with `credentials: 'include'` (the
 * session cookie), as a single-page app on another origin does, and each outcome is written into the page.
 * The upload form is read with `new FormData(form)`, so the file is the one the browser picked.
 */
export const CLIENT_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Client</title></head>
<body>
  <form id="upload"><input type="file" name="file" accept=".csv,text/csv"><input type="text" name="name"></form>
  <ol id="log"></ol>
  <script>
    const API = new URL(location.href).searchParams.get('api');
    window.api = async (method, path, body) => {
      const init = { method, credentials: 'include', headers: {} };
      if (body instanceof FormData) init.body = body;
      else if (body !== undefined) {
        init.body = JSON.stringify(body);
        init.headers['Content-Type'] = 'application/json';
      }
      let outcome;
      try {
        const res = await fetch(API + path, init);
        const text = await res.text();
        let parsed = text;
        try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: keep the text */ }
        outcome = { status: res.status, body: parsed };
      } catch (error) {
        outcome = { error: String(error) };
      }
      const line = document.createElement('li');
      line.textContent = method + ' ' + path + ' -> ' + ('status' in outcome ? outcome.status : outcome.error);
      document.getElementById('log').append(line);
      return outcome;
    };
    window.upload = () => window.api('POST', '/api/scrape/jobs', new FormData(document.getElementById('upload')));
    // Live progress as a dashboard follows it: EventSource with the session cookie, closed after a terminal stage.
    window.watch = (path) => new Promise((resolve) => {
      const seen = [];
      const source = new EventSource(API + path, { withCredentials: true });
      const record = (type) => (event) => {
        const job = JSON.parse(event.data);
        const stage = job.verificationStage ?? job.status;
        seen.push({ type, stage });
        if (stage === 'completed' || stage === 'failed') {
          source.close();
          resolve(seen);
        }
      };
      source.addEventListener('stage', record('stage'));
      source.addEventListener('progress', record('progress'));
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) resolve([...seen, { type: 'error' }]);
      };
    });
  </script>
</body>
</html>`;

/** The page's own functions, as Node's types see them (the project compiles without the DOM library). */
interface ClientGlobals {
  api(method: string, path: string, body?: unknown): Promise<Outcome>;
  upload(): Promise<Outcome>;
  watch(path: string): Promise<Array<{ type: string; stage?: string }>>;
}

/** Opens the client page served at `pageOrigin`, talking to the app at `apiOrigin`. */
export async function openClient(page: Page, pageOrigin: string, apiOrigin: string): Promise<void> {
  await page.goto(`${pageOrigin}/?api=${encodeURIComponent(apiOrigin)}`);
  await page.waitForFunction("typeof window.api === 'function'");
}

/** One API call made by the page itself. */
export function call(page: Page, method: string, path: string, body?: unknown): Promise<Outcome> {
  return page.evaluate(({ m, p, b }) => (globalThis as unknown as ClientGlobals).api(m, p, b), { m: method, p: path, b: body });
}

/** Submits the page's upload form (whatever file and name were put into it) as `new FormData(form)`. */
export function submitUpload(page: Page): Promise<Outcome> {
  return page.evaluate(() => (globalThis as unknown as ClientGlobals).upload());
}

/** The stage and progress messages the page's EventSource received until the job's terminal stage. */
export function watchEvents(page: Page, path: string): Promise<Array<{ type: string; stage?: string }>> {
  return page.evaluate((p) => (globalThis as unknown as ClientGlobals).watch(p), path);
}

/** `document.cookie` as the page's own script reads it. */
export function scriptVisibleCookies(page: Page): Promise<string> {
  return page.evaluate<string>('document.cookie');
}

/** The outcome's status and body; fails with what the page saw when `fetch` itself failed or the status differs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
export function expectStatus(outcome: Outcome, status: number): any {
  if ('error' in outcome) throw new Error(`the page's fetch failed: ${outcome.error}`);
  if (outcome.status !== status) throw new Error(`expected ${status}, the page got ${outcome.status} ${JSON.stringify(outcome.body)}`);
  return outcome.body;
}
