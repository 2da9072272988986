import { AppError } from "../../platform/errors/app-error.js";

/**
 * Refuses capabilities that are not the app's, naming the first one at `pointer/index` (400).
 * Shared by the administration (entitlements) and service-auth (a binding's required
 * capabilities), so it sits at the module's root.
 */
export function checkCapabilitiesOfApp(
  app: { capabilities: string[] },
  capabilities: string[],
  pointer: string,
) {
  const allowed = new Set(app.capabilities);
  const foreign = capabilities.findIndex((c) => !allowed.has(c));
  if (foreign >= 0) {
    throw new AppError("ERR_VALIDATION", "A capability is not one of the app's.", {
      errors: [{ pointer: `${pointer}/${foreign}`, message: "not a capability of the app" }],
    });
  }
}
