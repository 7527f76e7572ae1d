import { p } from '@mikro-orm/core';
import { uuidv7 } from 'uuidv7';

/**
 * Time-ordered UUIDv7 primary keys keep inserts index-friendly and make `ORDER BY id` mean "by creation" (monotonic
 * within a millisecond). `uuidv7` draws its random bits from a buffer: uuid's v7 called crypto.getRandomValues() for
 * 16 bytes each time, 4.5 µs an id here (half a second of a 100,000-row import) against 0.8.
 */
export const idProperty = () => p.uuid().primary().onCreate(() => uuidv7());
export const createdAtProperty = () => p.datetime().onCreate(() => new Date());
export const updatedAtProperty = () =>
  p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date());

export { uuidv7 as newId };

/** A relation as an entity holds it (a reference) or as the typed builder reads it (the foreign key). */
export type Ref = string | { id: string };
export const refId = (ref: Ref) => (typeof ref === 'string' ? ref : ref.id);
