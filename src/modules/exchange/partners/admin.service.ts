import type { ExchangeDeps } from "../exchange.deps.js";
import type { MailboxService } from "../mailbox/index.js";
import { createApiKeysService } from "./api-keys.service.js";
import { createOperatorViews } from "./operator-views.service.js";
import { createPartnersService } from "./partners.service.js";

/** Everything the administration routes call: partners and connections, API keys, operator views. */
export function createAdminService(deps: ExchangeDeps, mailbox: Pick<MailboxService, "requeue" | "resend">) {
  return {
    ...createPartnersService(deps),
    ...createApiKeysService(deps),
    ...createOperatorViews(deps, mailbox),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
