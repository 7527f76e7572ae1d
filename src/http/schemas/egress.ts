import { z } from '@hono/zod-openapi';

/** One SMTP egress's health (CONTRACT §13), as `/readyz` and `GET /api/settings/egress` show it. */
export const Egress = z
  .object({
    id: z.string(),
    publicIp: z.string().nullable(),
    state: z.enum(['ok', 'degraded', 'listed', 'blocked']),
    ptr: z.string().nullable(),
    fcrdns: z.boolean().nullable(),
    heloAligned: z.boolean().nullable(),
    dnsbl: z.array(z.object({ zone: z.string(), answer: z.string().nullable().openapi({ description: 'The A record (e.g. "127.0.0.2"), null for NXDOMAIN, or "unavailable"' }) })),
    quarantines: z.array(z.object({ provider: z.string(), until: z.string() })),
    checkedAt: z.string().nullable(),
  })
  .openapi('Egress');
