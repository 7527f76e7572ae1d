import { createServer, Packet } from 'dns2';
import type { DnsServer, Resource } from 'dns2';

/** Records of one name. A name absent from the zone is NXDOMAIN; a name with no records is NODATA. */
export interface ZoneEntry {
  a?: readonly string[];
  aaaa?: readonly string[];
  /** `exchange: ''` is the null MX root (`.`). */
  mx?: readonly { exchange: string; priority: number }[];
  /** PTR names of a reverse name (`4.3.2.1.in-addr.arpa`). */
  ptr?: readonly string[];
  servfail?: boolean;
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
        if (question.type === Packet.TYPE.A) {
          for (const address of entry.a ?? []) answer({ type: Packet.TYPE.A, address });
        } else if (question.type === Packet.TYPE.AAAA) {
          for (const address of entry.aaaa ?? []) answer({ type: Packet.TYPE.AAAA, address });
        } else if (question.type === Packet.TYPE.PTR) {
          for (const domain of entry.ptr ?? []) answer({ type: Packet.TYPE.PTR, domain });
        } else if (question.type === Packet.TYPE.MX) {
          for (const { exchange, priority } of entry.mx ?? [])
            answer({ type: Packet.TYPE.MX, exchange, priority });
        }
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
