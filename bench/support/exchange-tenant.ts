import { allPartnerScopes, ordersMessage } from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { benchToken, requestJson } from "./server.js";

/** An ORDERS interchange of about `bytes` bytes with control reference `ref` (at most 14 characters). */
export function orders(bytes: number, ref: string): Buffer {
  const lines: string[] = [];
  let body = "";
  for (let i = 0; body.length < bytes - 200; i++) {
    lines.push(`40008621${String(i).padStart(5, "0")}`);
    body = ordersMessage("1", `PO-${ref}`, lines);
  }
  return Buffer.from(`UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${body}UNZ+1+${ref}'`);
}

/**
 * Through the API (bootstrap token `benchToken`): a tenant (provisioned by `drain`, a worker's),
 * a partner, a connection to it with the profile the `orders` interchanges match (ORDRSP only),
 * and an API key with every partner scope.
 */
export async function exchangeTenant(appUrl: string, drain: () => Promise<unknown>) {
  const slug = `bench-${Date.now()}`;
  const admin = { email: `a@${slug}.test`, password: "correct horse battery staple" };
  await requestJson(`${appUrl}/api/v1/system/tenants`, {
    method: "POST",
    headers: { authorization: `Bearer ${benchToken}`, "idempotency-key": slug },
    body: { name: slug, slug, admin },
  });
  await drain();
  const session = await requestJson<{ token: string }>(`${appUrl}/api/v1/auth/sessions`, {
    method: "POST",
    body: { tenant: slug, ...admin },
  });
  const tenantAdmin = { authorization: `Bearer ${session.token}` };
  const partner = await requestJson<{ id: string }>(`${appUrl}/api/v1/admin/partners`, {
    method: "POST",
    headers: tenantAdmin,
    body: { name: "bench" },
  });
  const profile = {
    directory: "D96A",
    syntaxVersion: 3,
    syntaxIdentifier: "UNOC",
    partnerIdentification: { id: "5412345000013", qualifier: "14" },
    ownIdentification: { id: "4012345500004", qualifier: "14" },
  };
  const connection = await requestJson<{ id: string }>(`${appUrl}/api/v1/admin/connections`, {
    method: "POST",
    headers: tenantAdmin,
    body: { partnerId: partner.id, profile },
  });
  const key = await requestJson<{ token: string }>(`${appUrl}/api/v1/admin/api-keys`, {
    method: "POST",
    headers: tenantAdmin,
    body: { partnerId: partner.id, scopes: allPartnerScopes },
  });
  return {
    tenantAdmin,
    connectionId: connection.id,
    apiKey: key.token,
    inbox: `${appUrl}/api/v1/b2b-exchange/partner/connections/${connection.id}/inbox`,
    partnerHeaders: { authorization: `Bearer ${key.token}`, "content-type": "application/edifact" },
  };
}
