import { describe, expect, it } from 'vitest';
import { streamMultipart } from '../../src/http/multipart.ts';
import { PARSING_AT_ONCE, parsingTurn } from '../../src/http/middleware/upload-slot.ts';

const LIMIT = 1_000;

function uploadRequest(file: string, contentLength: boolean): Request {
  const boundary = 'b0undary';
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${file}\r\n--${boundary}--\r\n`,
  );
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (contentLength) headers['content-length'] = String(body.length);
  // A stream body carries no length of its own: only the header (when given) says it.
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(body));
      controller.close();
    },
  });
  return new Request('http://local/upload', { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
}

/** Runs an upload; answers what the consumer read (null: it was never called) and the error, if any. */
async function run(file: string, contentLength: boolean): Promise<{ read: string | null; error: string | null }> {
  let read: string | null = null;
  try {
    await streamMultipart(uploadRequest(file, contentLength), {
      fileField: 'file',
      maxFileBytes: LIMIT,
      consume: async ({ stream }) => {
        read = '';
        for await (const chunk of stream) read += String(chunk);
      },
    });
    return { read, error: null };
  } catch (error) {
    return { read, error: (error as { code?: string }).code ?? String(error) };
  }
}

describe('streamMultipart', () => {
  it('never hands a file over the limit to its reader when the body may be over it', async () => {
    const over = 'x'.repeat(LIMIT + 1);
    expect(await run(over, true)).toEqual({ read: null, error: 'payload_too_large' });
    expect(await run(over, false)).toEqual({ read: null, error: 'payload_too_large' });
  });

  it('hands a file within the limit over whole, received first or as it arrives', async () => {
    const within = 'y'.repeat(LIMIT);
    // Body over the limit (the framing): received into a temporary file first.
    expect(await run(within, true)).toEqual({ read: within, error: null });
    // A body that declares no length is treated the same way.
    expect(await run(within, false)).toEqual({ read: within, error: null });
    // A body within the limit: read as it arrives.
    expect(await run('z'.repeat(100), true)).toEqual({ read: 'z'.repeat(100), error: null });
  });

  it('refuses a file over the limit while every parsing turn is taken; one within waits for a turn', async () => {
    const never = new AbortController().signal;
    const held = await Promise.all(Array.from({ length: PARSING_AT_ONCE }, () => parsingTurn(never)));
    try {
      expect(await run('x'.repeat(LIMIT + 1), true)).toEqual({ read: null, error: 'payload_too_large' });
      let settled = false;
      const within = run('y'.repeat(LIMIT), true).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
      held.shift()!();
      expect(await within).toEqual({ read: 'y'.repeat(LIMIT), error: null });
    } finally {
      for (const release of held) release();
    }
  });
});
