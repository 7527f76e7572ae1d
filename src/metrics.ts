import { Counter, Gauge, Registry } from 'prom-client';

/**
 * The process's own counters, recorded where things happen (provider client, credit ledger, SMTP prober) and
 * exposed by `GET /metrics` with the per-app HTTP and job metrics. Module-level: one set per process.
 */
export const metricsRegistry = new Registry();

export const providerCalls = new Counter({
  name: 'provider_calls_total',
  help: 'HTTP calls to outside providers, by provider and outcome (ok, refused, rate_limited, server_error, network_error)',
  labelNames: ['provider', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const creditsMoved = new Counter({
  name: 'credits_total',
  help: 'Credits moved through the ledger, by direction (charged, granted)',
  labelNames: ['direction'] as const,
  registers: [metricsRegistry],
});

export const smtpConnections = new Counter({
  name: 'smtp_connections_total',
  help: 'SMTP sessions the prober tried to open, by outcome (opened, failed) and mail provider of the host',
  labelNames: ['outcome', 'mx_provider'] as const,
  registers: [metricsRegistry],
});

export const rcptReplies = new Counter({
  name: 'smtp_rcpt_replies_total',
  help: 'RCPT replies by what they mean (accepted, mailbox-unknown, temporary, policy, ...) and mail provider of the host',
  labelNames: ['result', 'mx_provider'] as const,
  registers: [metricsRegistry],
});

export const smtpOpenSessions = new Gauge({
  name: 'smtp_open_connections',
  help: 'SMTP sessions this process has open, by mail provider of the host and egress',
  labelNames: ['mx_provider', 'egress'] as const,
  registers: [metricsRegistry],
});

export const smtpLeaseWaits = new Counter({
  name: 'smtp_lease_waits_total',
  help: 'Session leases that had to wait for the shared per-(egress, host) budget, by mail provider and egress',
  labelNames: ['mx_provider', 'egress'] as const,
  registers: [metricsRegistry],
});

export const smtpLeaseWaitSeconds = new Counter({
  name: 'smtp_lease_wait_seconds_total',
  help: 'Time spent waiting for session leases of the shared budget, by mail provider and egress',
  labelNames: ['mx_provider', 'egress'] as const,
  registers: [metricsRegistry],
});

export const directoryLookups = new Counter({
  name: 'directory_lookups_total',
  help: "Addresses looked up in Microsoft's directory (canaries included), by answer: exists, absent or no_verdict",
  labelNames: ['answer'] as const,
  registers: [metricsRegistry],
});
