import { expect } from "vitest";
import type { InjectOptions } from "fastify";
import { bearer, type TestApp } from "./test-app.js";
import { provisionTenant, systemToken } from "./fixtures.js";

export interface RouteUnderTest {
  method: InjectOptions["method"];
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
  /** A system-tenant scope set that is NOT enough for this route. */
  insufficientScopes: string[];
  /** Only the system tenant may call it: other tenants get 404. */
  systemOnly?: boolean;
}

const problem = (response: { headers: Record<string, unknown>; json: () => unknown }) => {
  expect(response.headers["content-type"]).toContain("application/problem+json");
  return response.json() as { code: string; status: number; correlationId: string };
};

/** The denial cases every authenticated session route must get right (every such route's test runs them). */
export async function expectSessionRouteDenials(t: TestApp, route: RouteUnderTest): Promise<void> {
  const send = (headers: Record<string, string>) =>
    t.inject({
      method: route.method,
      url: route.url,
      headers: { ...route.headers, ...headers },
      ...(route.payload === undefined ? {} : { payload: route.payload as object }),
    });

  const attempts: Record<string, string>[] = [
    {},
    { authorization: "Basic dXNlcjpwYXNz" },
    { authorization: "Bearer" },
    {
      authorization:
        "Bearer hanse_at_00000000000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    },
    { authorization: "Bearer not-a-token-we-ever-issued-0123456789" },
  ];
  for (const headers of attempts) {
    const response = await send(headers);
    expect(response.statusCode, JSON.stringify(headers)).toBe(401);
    expect(problem(response).code).toBe("ERR_UNAUTHENTICATED");
    expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
  }

  const weak = await systemToken(t, route.insufficientScopes);
  const forbidden = await send(bearer(weak));
  expect(forbidden.statusCode).toBe(403);
  expect(problem(forbidden).code).toBe("ERR_FORBIDDEN");

  if (route.systemOnly) {
    const customer = await provisionTenant(t);
    const hidden = await send(bearer(customer.token));
    expect(hidden.statusCode).toBe(404);
    expect(problem(hidden).code).toBe("ERR_NOT_FOUND");
  }
}
