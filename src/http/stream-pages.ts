// A download made of pages read one at a time (a CSV export, a scrape job's items): each page is rendered and
// sent before the next is read, so any size streams in the memory of one page.
const encoder = new TextEncoder();

/** Streams `prefix`, every item of every page as `render` writes it, then `suffix`. */
export function streamPages<T>(
  pages: AsyncIterable<T[]>,
  render: (item: T, index: number) => string,
  { prefix = '', suffix = '' }: { prefix?: string; suffix?: string } = {},
): ReadableStream<Uint8Array> {
  async function* chunks() {
    yield encoder.encode(prefix);
    let index = 0;
    for await (const page of pages) yield encoder.encode(page.map((item) => render(item, index++)).join(''));
    yield encoder.encode(suffix);
  }
  return ReadableStream.from(chunks());
}
