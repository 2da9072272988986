import type { Generated, Kysely } from "kysely";
import { randomSecret } from "../crypto/secrets.js";
import type { HanseTables } from "./tables.js";

export interface InstanceSettingsTables {
  instance_settings: { name: string; value: string; created_at: Generated<Date> };
}

declare module "./tables.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface HanseTables extends InstanceSettingsTables {}
}

/**
 * A server-wide random secret shared by every process on one database; the first process to
 * ask creates it. Used for MACs when HANSE_SECRET_KEY is not configured.
 */
export async function instanceSecret(db: Kysely<HanseTables>, name: string): Promise<Buffer> {
  await db
    .insertInto("instance_settings")
    .values({ name, value: randomSecret() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = await db
    .selectFrom("instance_settings")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, "base64url");
}

/** The instance secret `name` if one was made (none is made here). */
export async function storedInstanceSecret(
  db: Kysely<HanseTables>,
  name: string,
): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom("instance_settings")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirst();
  return row ? Buffer.from(row.value, "base64url") : undefined;
}
