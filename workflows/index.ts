// Every workflow the worker registers is exported from here.
export * from './scrape.ts';
export * from './verification.ts';
