/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import type { Harness } from '../support/harness.ts';
import type { MailWorld } from '../support/mail-world/index.ts';
import { inStage, listWithEmails, startJob, startVerificationWorld, waitForJob } from '../support/verification.ts';

/** CONTRACT §10 `GET …/results/:email`: one transcript entry per SMTP attempt, lines as on the wire. */
const HELO = 'verifier.test';
const FROM = `verify@${HELO}`;

let world: MailWorld;
let h: Harness;
let stop: (() => Promise<void>) | undefined;
let agent: Agent;
let jobId: string;

const ADDRESSES = [
  // TLS and PIPELINING (the mail world's defaults): the RCPTs of a transaction go out in one window.
  'ann@tls.test',
  'nobody@tls.test',
  'Bob+Sales@tls.test',
  'carl@tls.test',
  // Plain text, one command at a time.
  'ok@plain.test',
  // 451 the first time, 250 the next (an in-session greylisting retry).
  'gina@grey.test',
  // No greeting: 421 instead.
  'x@closed.test',
  // Nothing listens.
  'y@down.test',
];

beforeAll(async () => {
  ({ world, h, stop } = await startVerificationWorld({
    domains: {
      'tls.test': {
        mx: [{ host: 'mx.tls.test', preference: 10, ip: '127.0.0.91', behaviour: { mailboxes: ['ann@tls.test', 'bob+sales@tls.test', 'carl@tls.test'] } }],
      },
      'plain.test': {
        mx: [{ host: 'mx.plain.test', preference: 10, ip: '127.0.0.92', behaviour: { mailboxes: ['ok@plain.test'], starttls: false, pipelining: false } }],
      },
      'grey.test': {
        mx: [{ host: 'mx.grey.test', preference: 10, ip: '127.0.0.93', behaviour: { mailboxes: ['gina@grey.test'], greylist: true } }],
      },
      'closed.test': {
        mx: [{ host: 'mx.closed.test', preference: 10, ip: '127.0.0.94', behaviour: { refuseGreeting: true } }],
      },
      'down.test': {
        mx: [{ host: 'mx.down.test', preference: 10, ip: '127.0.0.95', behaviour: { refused: true } }],
      },
    },
  }));
  ({ agent } = await h.signup());
  const listId = await listWithEmails(agent, ADDRESSES);
  jobId = (await startJob(agent, listId, 'smtp_only')).id;
  await waitForJob(agent, jobId, inStage('completed'));
});
afterAll(() => stop?.());

const transcriptOf = async (email: string, as: Agent = agent) => {
  const res = await as.get(`/api/verification/jobs/${jobId}/results/${encodeURIComponent(email)}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const sent = (entry: any): string[] => entry.lines.filter((l: any) => l.dir === 'C').map((l: any) => l.text);
/** The server lines right after the client line `command` (its reply). */
function replyTo(entry: any, command: string): string[] {
  const at = entry.lines.findIndex((l: any) => l.dir === 'C' && l.text === command);
  if (at < 0) return [];
  const reply: string[] = [];
  for (const line of entry.lines.slice(at + 1)) {
    if (line.dir !== 'S') break;
    reply.push(line.text);
  }
  return reply;
}
const noData = (result: any) => {
  for (const entry of result.transcript)
    for (const line of entry.lines) expect(line.text).not.toMatch(/^(DATA|BDAT)\b/i);
};

describe('GET /api/verification/jobs/:jobId/results/:email', () => {
  it('shows a valid and an invalid address their own session: greeting, EHLO, STARTTLS, EHLO, MAIL FROM, their RCPT', async () => {
    for (const [email, code] of [['ann@tls.test', '250'], ['nobody@tls.test', '550']] as const) {
      const result = await transcriptOf(email);
      expect(result).toMatchObject({ email, mxHost: 'mx.tls.test', attempts: 1, smtpCode: Number(code) });
      expect(result.transcript).toHaveLength(1);
      const [entry] = result.transcript;
      expect(entry).toMatchObject({ mxHost: 'mx.tls.test', ip: '127.0.0.91' });
      expect(new Date(entry.at).toISOString()).toBe(entry.at);
      expect(entry.lines[0]).toMatchObject({ dir: 'S', text: expect.stringMatching(/^220 /) });
      expect(sent(entry)).toEqual([`EHLO ${HELO}`, 'STARTTLS', `EHLO ${HELO}`, `MAIL FROM:<${FROM}>`, `RCPT TO:<${email}>`]);
      expect(replyTo(entry, 'STARTTLS')).toEqual([expect.stringMatching(/^220 /)]);
      // Before TLS the server offered STARTTLS; the EHLO inside TLS is a reply of its own.
      expect(replyTo(entry, `EHLO ${HELO}`)).toContainEqual(expect.stringMatching(/^250[- ]STARTTLS$/));
      expect(entry.lines.filter((l: any) => l.text === `EHLO ${HELO}`)).toHaveLength(2);
      expect(replyTo(entry, `MAIL FROM:<${FROM}>`)).toEqual([expect.stringMatching(/^250 /)]);
      expect(replyTo(entry, `RCPT TO:<${email}>`)).toEqual([expect.stringMatching(new RegExp(`^${code} `))]);
      // The other addresses of the same pipelined window are not in this transcript.
      expect(entry.lines.filter((l: any) => l.text.startsWith('RCPT'))).toHaveLength(1);
      noData(result);
    }
    expect(world.servers['mx.tls.test']!.stats.dataCommands).toBe(0);
  });

  it('shares one stored opening between the addresses of a session, each with its own lines', async () => {
    const [ann, carl] = [await transcriptOf('ann@tls.test'), await transcriptOf('carl@tls.test')];
    const opening = (r: any) => r.transcript[0].lines.slice(0, r.transcript[0].lines.findIndex((l: any) => l.text.startsWith('MAIL')));
    if (world.servers['mx.tls.test']!.stats.sessions === 1) expect(opening(ann)).toEqual(opening(carl));
    const [{ sessions }] = await h.sql(`select count(*)::int as sessions from verification_smtp_session where job_id = ? and mx_host = 'mx.tls.test'`, [jobId]);
    expect(sessions).toBeLessThanOrEqual(world.servers['mx.tls.test']!.stats.sessions);
    const [row] = await h.sql(`select transcript from verification_result where job_id = ? and email = 'ann@tls.test'`, [jobId]);
    // Per result only its own lines are stored: the opening lives in the session row.
    expect(row.transcript[0].lines.map((l: any) => l.text)).toEqual([
      `MAIL FROM:<${FROM}>`,
      expect.stringMatching(/^250 /),
      'RCPT TO:<ann@tls.test>',
      expect.stringMatching(/^250 /),
    ]);
  });

  it('shows a plain-text session without STARTTLS', async () => {
    const result = await transcriptOf('ok@plain.test');
    expect(result.transcript).toHaveLength(1);
    expect(sent(result.transcript[0])).toEqual([`EHLO ${HELO}`, `MAIL FROM:<${FROM}>`, 'RCPT TO:<ok@plain.test>']);
    expect(replyTo(result.transcript[0], 'RCPT TO:<ok@plain.test>')).toEqual([expect.stringMatching(/^250 /)]);
    noData(result);
  });

  it('shows an address deferred then accepted with one entry per attempt', async () => {
    const result = await transcriptOf('gina@grey.test');
    expect(result).toMatchObject({ result: 'Valid', attempts: 2, smtpCode: 250 });
    expect(result.transcript).toHaveLength(2);
    const [first, second] = result.transcript;
    expect(replyTo(first, 'RCPT TO:<gina@grey.test>')).toEqual([expect.stringMatching(/^451 /)]);
    expect(replyTo(second, 'RCPT TO:<gina@grey.test>')).toEqual([expect.stringMatching(/^250 /)]);
    expect(Date.parse(second.at)).toBeGreaterThan(Date.parse(first.at));
    noData(result);
  });

  it('keeps the attempts that got no reply to a RCPT: the lines seen so far', async () => {
    const closed = await transcriptOf('x@closed.test');
    expect(closed.result).toBe('Unknown');
    expect(closed.transcript).toHaveLength(1);
    expect(closed.transcript[0]).toMatchObject({ mxHost: 'mx.closed.test', ip: '127.0.0.94' });
    expect(closed.transcript[0].lines).toEqual([{ dir: 'S', text: expect.stringMatching(/^421 /) }]);
    const down = await transcriptOf('y@down.test');
    expect(down.transcript).toEqual([{ at: expect.any(String), mxHost: 'mx.down.test', ip: '127.0.0.95', lines: [] }]);
  });

  it('matches the address case-insensitively, URL-encoded or not', async () => {
    for (const path of ['Bob%2BSales%40TLS.test', 'bob+sales@tls.test', 'BOB%2Bsales@tls.test']) {
      const res = await agent.get(`/api/verification/jobs/${jobId}/results/${path}`);
      expect(res.status, path).toBe(200);
      expect(res.body.email).toBe('bob+sales@tls.test');
      expect(sent(res.body.transcript[0])).toContain('RCPT TO:<bob+sales@tls.test>');
    }
  });

  it('answers 404 for an address not in the job, an unknown job and another organization’s job', async () => {
    expectError(await agent.get(`/api/verification/jobs/${jobId}/results/someone%40else.test`), 404, 'not_found');
    expectError(await agent.get(`/api/verification/jobs/${randomUUID()}/results/ann%40tls.test`), 404, 'not_found');
    const { agent: stranger } = await h.signup();
    expectError(await stranger.get(`/api/verification/jobs/${jobId}/results/ann%40tls.test`), 404, 'not_found');
    expectError(await agent.get(`/api/verification/jobs/not-a-uuid/results/ann%40tls.test`), 400, 'validation_error');
  });

  it('answers the same on the external route with an API key, and the OpenAPI document describes the transcript', async () => {
    const { key } = await createKey(agent, ['verification:read']);
    const res = await new Agent(h.app).send('GET', `/api/external/verification/jobs/${jobId}/results/ann%40tls.test`, {
      headers: { 'x-api-key': key },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(await transcriptOf('ann@tls.test'));
    // The download route next to it still answers CSV.
    const csv = await agent.get(`/api/verification/jobs/${jobId}/results/download`);
    expect(csv.status).toBe(200);
    expect(csv.text).toMatch(/^email,result/);
    const doc = (await new Agent(h.app).get('/openapi.json')).body;
    const op = doc.paths['/api/external/verification/jobs/{jobId}/results/{email}'].get;
    expect(op.security).toEqual([{ apiKey: ['verification:read'] }]);
    // The result's fields by reference, then the transcript.
    const [base, schema] = doc.components.schemas.VerificationResultTranscript.allOf;
    expect(base).toEqual({ $ref: '#/components/schemas/VerificationResult' });
    expect(schema.required).toEqual(['transcript']);
    expect(schema.properties.transcript.items.required).toEqual(['at', 'mxHost', 'ip', 'lines']);
    expect(schema.properties.transcript.items.properties.lines.items.properties.dir.enum).toEqual(['C', 'S']);
    expect(doc.paths['/api/verification/jobs/{jobId}/results/{email}'].get).toBeDefined();
  });
});
