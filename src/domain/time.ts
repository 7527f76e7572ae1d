import { z } from '@hono/zod-openapi';

/** A timestamp as the API, the live stream and webhook events show it: ISO 8601 in UTC, null for none. */
export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** What `iso` writes, as the API's schemas declare it. */
export const Timestamp = z.iso.datetime().openapi({ example: '2026-11-20T12:00:00.000Z' });
