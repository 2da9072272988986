export type EntitlementStatus = "active" | "suspended" | "revoked";

/** An entitlement as services see it (rules/contract §5), timestamps as RFC 3339 text. */
export interface Entitlement {
  appId: string;
  actorId: string;
  status: EntitlementStatus;
  plan: string;
  capabilities: string[];
  validFrom: string;
  validUntil: string | null;
  sequence: number;
  updatedAt: string;
}

export interface EntitlementDecision {
  entitled: boolean;
  /** Why not, for logs and the CLI; never shown as a right. */
  reason:
    "entitled" | "unknown" | "suspended" | "revoked" | "not-yet-valid" | "expired" | "missing-capabilities";
}

/**
 * The one entitlement decision (introspection, grants, the native resolver and the SDK's local
 * projection all call it): entitled exactly when the status is active, `now` lies in
 * [validFrom, validUntil) and the capabilities include every required one.
 */
export function decideEntitlement(
  entitlement: Pick<Entitlement, "status" | "capabilities" | "validFrom" | "validUntil"> | null | undefined,
  requiredCapabilities: readonly string[],
  now: Date,
): EntitlementDecision {
  if (!entitlement) return { entitled: false, reason: "unknown" };
  if (entitlement.status === "suspended") return { entitled: false, reason: "suspended" };
  if (entitlement.status !== "active") return { entitled: false, reason: "revoked" };
  const at = now.getTime();
  if (at < Date.parse(entitlement.validFrom)) return { entitled: false, reason: "not-yet-valid" };
  if (entitlement.validUntil !== null && at >= Date.parse(entitlement.validUntil)) {
    return { entitled: false, reason: "expired" };
  }
  const held = new Set(entitlement.capabilities);
  if (!requiredCapabilities.every((c) => held.has(c)))
    return { entitled: false, reason: "missing-capabilities" };
  return { entitled: true, reason: "entitled" };
}
