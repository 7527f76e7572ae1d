/** A timestamp as the API, the live stream and webhook events show it: ISO 8601 in UTC, null for none. */
export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
