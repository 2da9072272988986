import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.js";

// Issue 32 step 5 (rules/contract §7): the issuer's userinfo endpoint, as its discovery document named
// it when the setting was saved. A provider that gives the `email` scope's claims at userinfo
// only (OpenID Connect Core §5.4, oidc-provider's default) is asked there when the ID token has
// no e-mail address. Null: the issuer named none, or the setting was saved before this column.
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `ALTER TABLE sso_settings ADD COLUMN userinfo_endpoint text;`);
}
