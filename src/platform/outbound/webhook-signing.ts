import { randomBytes } from "node:crypto";

export { signWebhook } from "@hanse/client/protocol";

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;
