import { createAuditRecorder, type AuditActor } from "../../platform/audit/index.js";
import type { Executor, IdentityDeps } from "./identity.deps.js";

/**
 * Identity's audit records, written in the caller's transaction (the change's own): a record
 * names the act, who did it and from where (`actor`), and what it changed; never a password,
 * token or hash (`data` holds ids and states only).
 */
export function identityAudit(deps: Pick<IdentityDeps, "clock" | "newId">) {
  const record = createAuditRecorder(deps);
  return {
    record,
    /** One `session.ended` per session a change ended (sign-out, deactivation, a new password). */
    async sessionsEnded(
      executor: Executor,
      tenantId: string,
      actor: AuditActor,
      sessionIds: readonly string[],
      reason: "sign_out" | "ended" | "deactivated" | "password_changed" | "password_reset",
    ) {
      for (const id of sessionIds) {
        await record(
          executor,
          tenantId,
          actor,
          "session.ended",
          { type: "session", id },
          { data: { reason } },
        );
      }
    },
  };
}

export type IdentityAudit = ReturnType<typeof identityAudit>;
