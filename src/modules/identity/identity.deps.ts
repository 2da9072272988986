import type { Clock } from "../../platform/clock/clock.js";
import type { IdGenerator } from "../../platform/crypto/index.js";
import type { Database } from "../../platform/db/database.js";
import type { CursorCodec } from "../../platform/http/cursor.js";
import type * as repo from "./credentials.repository.js";

/** What every part of identity's service receives from the module's factory. */
export interface IdentityDeps {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  cursors: CursorCodec;
  sessionTtlSeconds: number;
  /** A session unused this long is refused (HANSE_SESSION_IDLE_SECONDS). */
  sessionIdleSeconds: number;
  /** How long an invitation can be accepted (HANSE_INVITATION_TTL_SECONDS). */
  invitationTtlSeconds: number;
  /** How long a password reset can be used (HANSE_PASSWORD_RESET_TTL_SECONDS). */
  passwordResetTtlSeconds: number;
  /** Failed sign-ins of an account (all addresses) before its checks are spaced out. */
  signInAccountFailures: number;
}

/** A connection or the caller's transaction, for writes that join the caller's transaction. */
export type Executor = Parameters<typeof repo.insertCredential>[0];
