import { inject, describe, expect, it } from 'vitest';
import { initOrm } from '../../src/db/orm.ts';

describe('database schema', () => {
  it('the committed migrations produce exactly the schema the entities describe', async () => {
    const orm = await initOrm(inject('databaseUrl'));
    try {
      const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
      expect(diff.trim()).toBe('');
    } finally {
      await orm.close();
    }
  });
});
