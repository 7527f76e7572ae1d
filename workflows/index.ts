// Every workflow the worker registers is exported from here.
export * from './enrichment.ts';
export * from './scrape.ts';
export * from './verification.ts';
export * from './single-check.ts';
export * from './webhook-delivery.ts';
export * from './maintenance.ts';
export * from './find-email.ts';
