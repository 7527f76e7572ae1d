/**
 * MikroORM's PostgreSQL driver, but a transaction whose ROLLBACK fails still gives its connection back to the pool.
 * Kysely's controlled transaction (which MikroORM's transactions are) releases its connection only after a ROLLBACK
 * that succeeded (kysely-org/kysely#1990). A connection the server cut mid-transaction (a restart, a failover, an
 * operator's kill, a timeout) fails its ROLLBACK, so it was never released: the pool lost a slot for good, the
 * process stalled once all were lost, and closing the pool waited forever.
 */
import { PostgreSqlConnection, PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { DatabaseConnection, Driver } from 'kysely';
import { log } from '../log.ts';

/**
 * The failed ROLLBACK is reported and the transaction ends, so Kysely releases the connection: the pool discards one
 * the server cut (pg no longer counts it queryable); on a live one the ROLLBACK still runs before anything else on
 * it. A transaction that could not be rolled back on a live connection was never committed either.
 */
function releaseAfterFailedRollback(driver: Driver): Driver {
  const rollback = driver.rollbackTransaction.bind(driver);
  driver.rollbackTransaction = async (connection: DatabaseConnection): Promise<void> => {
    try {
      await rollback(connection);
    } catch (error) {
      log.warn('transaction rollback failed; its connection goes back to the pool', { error: error instanceof Error ? error.message : String(error) });
    }
  };
  return driver;
}

class ReleasingPostgreSqlConnection extends PostgreSqlConnection {
  override createKyselyDialect(overrides: Parameters<PostgreSqlConnection['createKyselyDialect']>[0]) {
    const dialect = super.createKyselyDialect(overrides);
    const createDriver = dialect.createDriver.bind(dialect);
    dialect.createDriver = () => releaseAfterFailedRollback(createDriver());
    return dialect;
  }
}

export class ReleasingPostgreSqlDriver extends PostgreSqlDriver {
  protected override readonly connection = new ReleasingPostgreSqlConnection(this.config);
  protected override readonly replicas = this.createReplicas((replica) => new ReleasingPostgreSqlConnection(this.config, replica, 'read'));
}
