/** The job events a webhook endpoint may subscribe to (CONTRACT §9.3); `*` subscribes to all. */
export const WEBHOOK_EVENTS = [
  'verification.awaiting_decision',
  'verification.completed',
  'verification.failed',
  'scrape.completed',
  'scrape.failed',
  'enrichment.completed',
  'enrichment.failed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
