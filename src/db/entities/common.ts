import { p } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';

/** Time-ordered UUIDv7 primary keys keep inserts index-friendly and make `ORDER BY id` mean "by creation". */
export const idProperty = () => p.uuid().primary().onCreate(() => uuidv7());
export const createdAtProperty = () => p.datetime().onCreate(() => new Date());
export const updatedAtProperty = () =>
  p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date());

export { uuidv7 as newId };
