import { readFile } from "node:fs/promises";
import pg from "pg";
import { inject } from "vitest";
import { openDatabase, type Database } from "../../src/platform/db/database.js";
import { adminUrl, databaseUrlFor, directUrlFor } from "./postgres-url.js";

export const onPostgres = Boolean(process.env.DATABASE_URL);

/**
 * DATABASE_URL names a transaction-mode pooler (HANSE_DATABASE_POOLER=transaction, as the
 * server reads it): test databases are created through HANSE_TEST_ADMIN_DATABASE_URL
 * (postgres-url.ts) and opened through the pooler as the server would open them.
 */
export const throughPooler = process.env.HANSE_DATABASE_POOLER === "transaction";

export interface TestDatabase {
  database: Database;
  /** PostgreSQL only: the URL of this test's own database (for child processes). */
  url?: string;
  /** PostgreSQL only: the same database bypassing any pooler (for tests of session features). */
  directUrl?: string;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: a copy of the run's template database on
 * PostgreSQL (DATABASE_URL set), otherwise an in-memory PGlite loaded from the migrated dump.
 */
export async function createTestDatabase(
  options: { connectVia?: (url: string) => string } = {},
): Promise<TestDatabase> {
  const template = inject("databaseTemplate");
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `hanse_t_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    const admin = new pg.Client({ connectionString: adminUrl(url) });
    await admin.connect();
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (error) {
        // 55006: the template is briefly in use by a concurrent copy.
        if ((error as { code?: string }).code !== "55006" || attempt > 50) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const ownUrl = databaseUrlFor(url, name);
    // `connectVia`: the app reaches its database another way (e.g. through a proxy a test cuts).
    const database = await openDatabase({
      url: options.connectVia?.(ownUrl) ?? ownUrl,
      poolSize: 20,
      pooler: throughPooler ? "transaction" : undefined,
      // As production is advised to run (docs/operations.md): LISTEN on a direct connection.
      directUrl: throughPooler ? directUrlFor(url, name) : undefined,
    });
    return {
      database,
      url: ownUrl,
      directUrl: directUrlFor(url, name),
      drop: async () => {
        await database.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  }
  const dump = new Blob([await readFile(template)]);
  const database = await openDatabase({ memory: true, loadDataDir: dump });
  return { database, drop: () => database.close() };
}
