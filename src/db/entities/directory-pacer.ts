import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The pace of one outside directory (CONTRACT §12, `microsoft`), shared by every worker process: the earliest
 * moment the next request may be sent. Only moved forward by the one reservation in `directory/repository.ts`.
 */
export const DirectoryPacer = defineEntity({
  name: 'DirectoryPacer',
  properties: {
    name: p.string().length(40).primary(),
    nextAt: p.datetime(),
  },
});
export type IDirectoryPacer = InferEntity<typeof DirectoryPacer>;
