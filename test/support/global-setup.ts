import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect } from "kysely";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../../src/platform/db/database.js";
import { migrateToLatest } from "../../src/platform/db/migrate.js";
import { adminUrl, directUrlFor } from "./postgres-url.js";
import type { HanseTables } from "../../src/platform/db/tables.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** PostgreSQL: name of the migrated template database. PGlite: path of a migrated data-dir dump. */
    databaseTemplate: string;
  }
}

/**
 * Migrates once per run: a template database on PostgreSQL (DATABASE_URL set), or a dump of a
 * migrated PGlite data directory; each test file then starts from a copy in well under a second.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `hanse_tpl_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl(url) });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const database = await openDatabase({ url: directUrlFor(url, name), poolSize: 1 });
    await migrateToLatest(database.db);
    await database.close();
    project.provide("databaseTemplate", name);
    return async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  }
  const seeded = await PGlite.create();
  const db = new Kysely<HanseTables>({ dialect: new PGliteDialect({ pglite: seeded }) });
  await migrateToLatest(db);
  const dump = await seeded.dumpDataDir("none");
  const path = join(tmpdir(), `hanse-template-${process.pid}-${Date.now()}.tar`);
  await writeFile(path, Buffer.from(await dump.arrayBuffer()));
  await db.destroy();
  project.provide("databaseTemplate", path);
  return async () => {
    await rm(path, { force: true });
  };
}
