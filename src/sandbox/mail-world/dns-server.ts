import { createServer, Packet } from 'dns2';
import type { DnsServer, Resource } from 'dns2';

/** Records of one name. A name absent from the zone is NXDOMAIN; a name with no records is NODATA. */
export interface ZoneEntry {
  a?: readonly string[];
  aaaa?: readonly string[];
  /** `exchange: ''` is the null MX root (`.`). */
  mx?: readonly { exchange: string; priority: number }[];
  /** TXT records, each one string (split into 255-octet character-strings on the wire). */
  txt?: readonly string[];
  /** An alias: any question about the name answers this CNAME (and the target's records of the type asked, when the zone has them). */
  cname?: string;
  /** PTR names of a reverse name (`4.3.2.1.in-addr.arpa`). */
  ptr?: readonly string[];
  servfail?: boolean;
}

/** RFC 1035 §3.3: a character-string holds at most 255 octets; longer TXT data goes in several. */
function characterStrings(text: string): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 255) chunks.push(text.slice(i, i + 255));
  return chunks.length > 0 ? chunks : [''];
}

export interface RunningDnsServer {
  /** `127.0.0.1:<port>`, as the prober's `dnsServers` option takes it. */
  address: string;
  /** Queries answered, by `TYPE name`. */
  queries: string[];
  stop(): Promise<void>;
}

const TTL = 60;

/** An authoritative-looking UDP DNS server for the test zone, on 127.0.0.1 and a free port. */
export async function startDnsServer(zone: ReadonlyMap<string, ZoneEntry>, options: { authoritativeFor?: string } = {}): Promise<RunningDnsServer> {
  // Outside its own domain a server that knows nothing must not say "no such domain" (that would make an
  // address Invalid): it fails the query instead.
  const outside = (name: string) => options.authoritativeFor !== undefined && name !== options.authoritativeFor && !name.endsWith(`.${options.authoritativeFor}`);
  const queries: string[] = [];
  const server: DnsServer = createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      const [question] = request.questions;
      if (!question) {
        response.header.rcode = Packet.RCODE.FORMERR;
        void send(response);
        return;
      }
      const name = question.name.toLowerCase().replace(/\.$/, '');
      queries.push(`${Packet.typeName(question.type)} ${name}`);
      const entry = zone.get(name);
      if (!entry) response.header.rcode = outside(name) ? Packet.RCODE.SERVFAIL : Packet.RCODE.NXDOMAIN;
      else if (entry.servfail) response.header.rcode = Packet.RCODE.SERVFAIL;
      else {
        const answer = (fields: Partial<Resource>): void => {
          response.answers.push(
            new Packet.Resource({ name: question.name, class: Packet.CLASS.IN, ttl: TTL, ...fields }),
          );
        };
        const records = (owner: string, found: ZoneEntry): void => {
          const answerAs = (fields: Partial<Resource>) => answer({ name: owner, ...fields });
          if (question.type === Packet.TYPE.A) {
            for (const address of found.a ?? []) answerAs({ type: Packet.TYPE.A, address });
          } else if (question.type === Packet.TYPE.AAAA) {
            for (const address of found.aaaa ?? []) answerAs({ type: Packet.TYPE.AAAA, address });
          } else if (question.type === Packet.TYPE.MX) {
            for (const { exchange, priority } of found.mx ?? [])
              answerAs({ type: Packet.TYPE.MX, exchange, priority });
          } else if (question.type === Packet.TYPE.TXT) {
            for (const text of found.txt ?? []) answerAs({ type: Packet.TYPE.TXT, data: characterStrings(text) });
          } else if (question.type === Packet.TYPE.PTR) {
            for (const domain of found.ptr ?? []) answerAs({ type: Packet.TYPE.PTR, domain });
          }
        };
        if (entry.cname !== undefined) {
          answer({ type: Packet.TYPE.CNAME, domain: entry.cname });
          const target = zone.get(entry.cname.toLowerCase());
          if (question.type !== Packet.TYPE.CNAME && target && !target.servfail) records(entry.cname, target);
        } else records(question.name, entry);
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp?.port;
  if (port === undefined) throw new Error('DNS server did not report its UDP port');
  return {
    address: `127.0.0.1:${port}`,
    queries,
    stop: () => server.close(),
  };
}
