import { connect } from 'node:net';

export interface PortClaim {
  port: number;
  /** The variable that moves it, for the error message. */
  variable: string;
  service: string;
}

export class PortsInUseError extends Error {
  constructor(claims: PortClaim[]) {
    const lines = claims.map((c) => `  ${c.port} (${c.service}; change it with ${c.variable})`);
    super(`Ports already in use, perhaps by another \`npm run dev\`:\n${lines.join('\n')}`);
    this.name = 'PortsInUseError';
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Readiness probes cannot tell our server from a stranger on the same port, so a busy port has to stop the runner
 * before it starts anything.
 */
export async function assertPortsFree(claims: PortClaim[]): Promise<void> {
  const busy: PortClaim[] = [];
  for (const claim of claims) if (await answers(claim.port)) busy.push(claim);
  if (busy.length > 0) throw new PortsInUseError(busy);
}
