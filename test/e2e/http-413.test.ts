import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  setupPartner,
  partnerUrl,
  type PartnerSetup,
} from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { provisionTenant, type ProvisionedTenant } from "../support/fixtures.js";
import { parseResponse, rawRequest, type RawRequest } from "../support/raw-http.js";
import { createTestApp, type TestApp } from "../support/test-app.js";

let t: TestApp;
let tenant: ProvisionedTenant;
let partner: PartnerSetup;
let base: string;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await provisionTenant(t);
  partner = await setupPartner(t, tenant.token);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = Number(new URL(base).port);
});
afterAll(async () => {
  await t.close();
});

const MiB = 1024 * 1024;

/** Oversized requests to the three limited routes of the issue, as clients that keep writing. */
function oversized(): { name: string; request: RawRequest }[] {
  const session = [
    "POST /api/v1/auth/sessions HTTP/1.1",
    "Host: localhost",
    "Content-Type: application/json",
  ];
  const transition = [
    "POST /api/v1/workflows/transition-requests HTTP/1.1",
    "Host: localhost",
    `Authorization: Bearer ${tenant.token}`,
    `X-Tenant-ID: ${tenant.id}`,
    "X-Idempotency-Key: oversized",
    "Content-Type: application/json",
  ];
  const inbox = [
    `POST ${partnerUrl(partner.connectionId, "/inbox")} HTTP/1.1`,
    "Host: localhost",
    `Authorization: Bearer ${partner.token}`,
    "Idempotency-Key: oversized",
    "Content-Type: application/edifact",
  ];
  return [
    {
      name: "session",
      request: { head: [...session, `Content-Length: ${6 * MiB}`].join("\r\n"), bodyBytes: 6 * MiB },
    },
    {
      name: "session chunked",
      request: {
        head: [...session, "Transfer-Encoding: chunked"].join("\r\n"),
        bodyBytes: MiB,
        chunked: true,
      },
    },
    {
      name: "transition",
      request: { head: [...transition, `Content-Length: ${6 * MiB}`].join("\r\n"), bodyBytes: 6 * MiB },
    },
    {
      name: "inbox",
      request: { head: [...inbox, `Content-Length: ${17 * MiB}`].join("\r\n"), bodyBytes: 17 * MiB },
    },
    {
      name: "inbox chunked",
      request: {
        head: [...inbox, "Transfer-Encoding: chunked"].join("\r\n"),
        bodyBytes: 17 * MiB,
        chunked: true,
      },
    },
  ];
}

describe("issue 20 defect 4: a 413 reaches the client as a 413, not as a reset (rules/contract §1)", () => {
  it("clients that keep writing past the limit all read a complete 413 problem+json, several at once and under load", async () => {
    const failures: string[] = [];
    let answered = 0;
    for (let round = 0; round < 4; round++) {
      const cases = [...oversized(), ...oversized().slice(0, 3)];
      // Ordinary requests alongside: the load that made most 413s resets.
      const load = Array.from({ length: 30 }, (_, i) =>
        request(`${base}${i % 2 ? "/healthz" : "/api/v1/profile/whoami"}`, {
          headers: { authorization: `Bearer ${tenant.token}` },
        }).then(async (r) => {
          await r.body.dump();
          return r.statusCode;
        }),
      );
      const results = await Promise.all(cases.map((c) => rawRequest(port, c.request)));
      expect(await Promise.all(load)).toEqual(load.map(() => 200));
      results.forEach((result, i) => {
        const name = cases[i]?.name ?? "?";
        const response = parseResponse(result.received);
        if (!response) {
          failures.push(
            `${name}: no complete response (${result.error ?? "closed"}, ${String(result.received.length)} bytes)`,
          );
          return;
        }
        const body = JSON.parse(response.body.toString("utf8")) as {
          status: number;
          code: string;
          correlationId: string;
        };
        if (
          response.status !== 413 ||
          response.headers["content-type"] !== "application/problem+json; charset=utf-8" ||
          body.status !== 413 ||
          !/PAYLOAD_TOO_LARGE$/.test(body.code) ||
          body.correlationId !== response.headers["x-correlation-id"]
        ) {
          failures.push(`${name}: ${String(response.status)} ${response.body.toString("utf8")}`);
          return;
        }
        answered++;
      });
    }
    expect(failures).toEqual([]);
    expect(answered).toBe(4 * 8);
  });
});
