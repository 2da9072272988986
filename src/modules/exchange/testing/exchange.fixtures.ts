import type { Readable } from "node:stream";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { request } from "undici";

/** Test inputs and API helpers of the exchange (no corpus copies). */
interface Injector {
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
}

export const ordersMessage = (ref: string, po: string, lines: string[] = ["4000862141404"]): string =>
  `UNH+${ref}+ORDERS:D:96A:UN'BGM+220+${po}+9'DTM+137:20240315:102'NAD+BY+5412345000013::9'` +
  `NAD+SU+4012345500004::9'` +
  lines.map((gtin, i) => `LIN+${i + 1}++${gtin}:EN'QTY+21:${(i + 1) * 12}'`).join("") +
  `UNS+S'CNT+2:${lines.length}'UNT+${8 + lines.length * 2}+${ref}'`;

/** A valid D.96A ORDERS interchange, syntax 3, one message. */
export const validOrders = (ref = "IC1", options: { ack?: boolean; lines?: string[] } = {}): string =>
  `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}${options.ack ? "++++1" : ""}'` +
  `${ordersMessage("1", `PO-${ref}`, options.lines)}UNZ+1+${ref}'`;

/** Two messages, the second broken (missing BGM, bad values). */
export const partlyBrokenOrders = (ref = "IC2"): string =>
  `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${ordersMessage("1", "PO1")}` +
  `UNH+2+ORDERS:D:96A:UN'DTM+137:20240315:102'NAD+ZZX+5412345000013::9'LIN+1++4000862141404:EN+++++9'` +
  `QTY+21:4A8'UNS+S'UNT+7+2'UNZ+2+${ref}'`;

/** UNZ counts three messages where there is one: the interchange is rejected. */
export const rejectedOrders = (ref = "IC3"): string =>
  `UNB+UNOC:3+5412345000013:14+4012345500004:14+240315:1200+${ref}'${ordersMessage("1", "PO1")}UNZ+3+${ref}'`;

export const defaultProfile = {
  directory: "D96A",
  syntaxVersion: 3,
  syntaxIdentifier: "UNOC",
  partnerIdentification: { id: "5412345000013", qualifier: "14" },
  ownIdentification: { id: "4012345500004", qualifier: "14" },
  responses: { contrl: "on-error", aperak: "on-error", ordrsp: "auto" },
  orderValidation: "none",
} as const;

export const allPartnerScopes = [
  "b2b_exchange_partner_inbox:create",
  "b2b_exchange_partner_mailbox:list",
  "b2b_exchange_partner_mailbox:claim",
  "b2b_exchange_partner_mailbox:payload_read",
  "b2b_exchange_partner_mailbox:acknowledge",
];

export interface PartnerSetup {
  partnerId: string;
  connectionId: string;
  apiKeyId: string;
  token: string;
}

async function post<T>(
  t: Injector,
  adminToken: string,
  url: string,
  payload: unknown,
  expected = 201,
): Promise<T> {
  const response = await t.inject({
    method: "POST",
    url,
    headers: { authorization: `Bearer ${adminToken}` },
    payload: payload as object,
  });
  if (response.statusCode !== expected) {
    throw new Error(`POST ${url} → ${response.statusCode} ${response.body}`);
  }
  return response.json<T>();
}

/** A partner with one connection and a key holding every partner scope (or the given ones). */
export async function setupPartner(
  t: Injector,
  adminToken: string,
  options: {
    profile?: Record<string, unknown>;
    scopes?: string[];
    partnerId?: string;
    restrict?: boolean;
  } = {},
): Promise<PartnerSetup> {
  const partnerId =
    options.partnerId ??
    (await post<{ id: string }>(t, adminToken, "/api/v1/admin/partners", { name: "Buyer GmbH" })).id;
  const connection = await post<{ id: string }>(t, adminToken, "/api/v1/admin/connections", {
    partnerId,
    profile: { ...defaultProfile, ...options.profile },
  });
  const key = await post<{ apiKeyId: string; token: string }>(t, adminToken, "/api/v1/admin/api-keys", {
    partnerId,
    scopes: options.scopes ?? allPartnerScopes,
    ...(options.restrict ? { connectionIds: [connection.id] } : {}),
  });
  return { partnerId, connectionId: connection.id, apiKeyId: key.apiKeyId, token: key.token };
}

export const partnerUrl = (connectionId: string, suffix: string): string =>
  `/api/v1/b2b-exchange/partner/connections/${connectionId}${suffix}`;

/** An upload over a real port (undici), for bodies that stream or must not be buffered. */
export const streamUpload = (
  base: string,
  setup: { connectionId: string; token: string },
  body: Buffer | Readable,
  key: string,
) =>
  request(`${base}${partnerUrl(setup.connectionId, "/inbox")}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${setup.token}`,
      "content-type": "application/edifact",
      "idempotency-key": key,
    },
    body,
  });

export function upload(
  t: Injector,
  setup: { connectionId: string; token: string },
  body: string | Buffer,
  key: string,
  contentType = "application/edifact",
) {
  return t.inject({
    method: "POST",
    url: partnerUrl(setup.connectionId, "/inbox"),
    headers: { authorization: `Bearer ${setup.token}`, "content-type": contentType, "idempotency-key": key },
    payload: body,
  });
}

export interface MailboxEntry {
  deliveryAttemptId: string;
  interchangeId: string;
  messageType: string;
  payloadSize: number;
  payloadSha256: string;
  status: string;
  createdAt: string;
  uploadId: string;
  inboundInterchangeId: string | null;
  messageReference: string;
}

export async function listMailbox(t: Injector, setup: { connectionId: string; token: string }, query = "") {
  const response = await t.inject({
    method: "GET",
    url: partnerUrl(setup.connectionId, `/mailbox${query}`),
    headers: { authorization: `Bearer ${setup.token}` },
  });
  if (response.statusCode !== 200) throw new Error(`mailbox → ${response.statusCode} ${response.body}`);
  return response.json<{ items: MailboxEntry[]; meta: { hasMore: boolean; nextCursor: string | null } }>();
}

export function claim(t: Injector, setup: { connectionId: string; token: string }, id: string) {
  return t.inject({
    method: "POST",
    url: partnerUrl(setup.connectionId, `/mailbox/${id}/claim`),
    headers: { authorization: `Bearer ${setup.token}` },
  });
}

export function readPayload(
  t: Injector,
  setup: { connectionId: string; token: string },
  id: string,
  claimToken: string,
) {
  return t.inject({
    method: "GET",
    url: partnerUrl(setup.connectionId, `/mailbox/${id}/payload`),
    headers: { authorization: `Bearer ${setup.token}`, "x-b2b-claim-token": claimToken },
  });
}

export function acknowledge(
  t: Injector,
  setup: { connectionId: string; token: string },
  id: string,
  claimToken?: string,
) {
  return t.inject({
    method: "POST",
    url: partnerUrl(setup.connectionId, `/mailbox/${id}/acknowledge`),
    headers: {
      authorization: `Bearer ${setup.token}`,
      ...(claimToken === undefined ? {} : { "x-b2b-claim-token": claimToken }),
    },
  });
}
