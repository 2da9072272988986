/**
 * HTTP fuzzer (issue 20): malformed requests against every operation of `/openapi.json` on a
 * real server (embedded database, temporary data directory). It counts every 5xx, every error
 * answer that is not the problem+json of rules/contract §1 (with the correlation id in header and
 * body), every error answer that repeats a marker the request carried, and every request that
 * got no answer at all (a reset or a hang).
 *
 *   npm run fuzz -- http [--seconds N] [--requests N] [--seed N] [--concurrency N]
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { Agent, request } from "undici";
import { loadConfig } from "../../src/config/index.js";
import { allPartnerScopes, defaultProfile } from "../../src/modules/exchange/testing/exchange.fixtures.js";
import { createLogger } from "../../src/platform/logging/logger.js";
import { startProcess, type RunningProcess } from "../../src/server.js";
import { parseResponse, rawRequest } from "../../test/support/raw-http.js";

export interface HttpFuzzOptions {
  /** Stop after this long. */
  seconds: number;
  /** Stop after this many requests (whichever comes first). */
  maxRequests?: number;
  seed?: number;
  concurrency?: number;
}

export interface HttpFuzzFinding {
  /** `repeat-accepted`: a request repeating a single-valued header was not refused. */
  kind: "5xx" | "not-problem" | "echo" | "no-answer" | "repeat-accepted";
  request: string;
  status?: number;
  detail: string;
}

export interface HttpFuzzReport {
  seed: number;
  seconds: number;
  operations: number;
  requests: number;
  rawRequests: number;
  byStatus: Record<string, number>;
  counts: Record<HttpFuzzFinding["kind"], number>;
  /** Log lines at level error or above. */
  errorLogs: number;
  /** Requests that repeated a single-valued header, and integer-boundary values sent. */
  repeatedHeaders: number;
  integerEdges: number;
  /** The first findings of each kind. */
  samples: HttpFuzzFinding[];
}

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  /** The path parameters declared as integers. */
  integerPathParams: string[];
  queryParams: { name: string; schema: Schema }[];
  body?: Schema;
}

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
  maxLength?: number;
}

interface Target {
  base: string;
  port: number;
  adminToken: string;
  partnerToken?: string;
  connectionId?: string;
}

/** A small seeded generator, so that a run can be repeated (`--seed`). */
function generator(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number) => next() < p;
  return { int, pick, chance };
}
type Random = ReturnType<typeof generator>;

/** A marker the request carries; an error answer must not contain it. */
const newMarker = (random: Random) =>
  `Mk${random.int(2 ** 30).toString(36)}q${random.int(2 ** 30).toString(36)}`;

function operationsOf(document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, Schema> };
}): { operations: Operation[]; schemas: Record<string, Schema> } {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const parameters = (operation.parameters ?? []) as { name: string; in: string; schema?: Schema }[];
      const content = (operation.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)
        ?.content;
      const body = content?.["application/json"]?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? ""),
        integerPathParams: parameters
          .filter((p) => p.in === "path" && p.schema?.type === "integer")
          .map((p) => p.name),
        queryParams: parameters
          .filter((p) => p.in === "query")
          .map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        ...(body ? { body } : {}),
      });
    }
  }
  return { operations, schemas: document.components?.schemas ?? {} };
}

/** A value shaped like `schema`, with the marker wherever text goes. */
function valueFor(
  schema: Schema,
  schemas: Record<string, Schema>,
  random: Random,
  marker: string,
  depth = 0,
): unknown {
  if (depth > 6) return marker;
  if (schema.$ref) {
    const name = schema.$ref.split("/").pop() ?? "";
    return valueFor(schemas[name] ?? {}, schemas, random, marker, depth + 1);
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return valueFor(random.pick(alternatives), schemas, random, marker, depth + 1);
  if (schema.enum?.length && random.chance(0.7)) return random.pick(schema.enum);
  const type = Array.isArray(schema.type) ? random.pick(schema.type) : schema.type;
  switch (type) {
    case "object": {
      const result: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (random.chance(0.85)) result[name] = valueFor(property, schemas, random, marker, depth + 1);
      }
      return result;
    }
    case "array":
      return Array.from({ length: random.int(3) }, () =>
        valueFor(schema.items ?? {}, schemas, random, marker, depth + 1),
      );
    case "integer":
    case "number":
      return random.pick([0, 1, -1, 50, 2 ** 53, 1e308, 0.5]);
    case "boolean":
      return random.chance(0.5);
    case "null":
      return null;
    default:
      if (schema.format === "uuid" && random.chance(0.5)) return randomUUID();
      if (schema.format === "date-time" && random.chance(0.5)) return new Date().toISOString();
      return random.pick([marker, `${marker}@example.test`, `${marker} ${"x".repeat(random.int(300))}`]);
  }
}

/** One JSON-ish body: near-valid with a twist, or broken in one of many ways. */
function bodyFor(operation: Operation, schemas: Record<string, Schema>, random: Random, marker: string) {
  const valid = operation.body ? valueFor(operation.body, schemas, random, marker) : {};
  const kinds = [
    "near-valid",
    "near-valid",
    "unknown-field",
    "wrong-types",
    "invalid-json",
    "invalid-utf8",
    "nul",
    "deep",
    "huge",
    "scalar",
    "proto",
    "many-fields",
    "empty",
  ] as const;
  const kind = random.pick(kinds);
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  switch (kind) {
    case "near-valid":
      return { kind, body: json(valid) };
    case "unknown-field":
      return { kind, body: json({ ...(valid as object), [marker]: marker }) };
    case "wrong-types":
      return {
        kind,
        body: json(
          Object.fromEntries(
            Object.keys(valid as object).map((k) => [k, random.pick([[marker], { marker }, 7, null])]),
          ),
        ),
      };
    case "invalid-json":
      return {
        kind,
        body: Buffer.from(random.pick([`{"${marker}":`, `{${marker}}`, `[${marker}`, `"${marker}`])),
      };
    case "invalid-utf8":
      return {
        kind,
        body: Buffer.concat([
          Buffer.from(`{"name":"${marker}`),
          Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
          Buffer.from('"}'),
        ]),
      };
    case "nul":
      return { kind, body: json({ ...(valid as object), name: `${marker}\u0000` }) };
    case "deep":
      return { kind, body: Buffer.from(`${"[".repeat(5000)}"${marker}"${"]".repeat(5000)}`) };
    case "huge":
      return {
        kind,
        body: json({ ...(valid as object), name: marker.repeat(random.pick([1000, 200_000])) }),
      };
    case "scalar":
      return { kind, body: Buffer.from(random.pick(["null", "0", "true", `"${marker}"`, "[]"])) };
    case "proto":
      return {
        kind,
        body: Buffer.from(`{"__proto__":{"polluted":"${marker}"},"constructor":{"prototype":{"x":1}}}`),
      };
    case "many-fields":
      return {
        kind,
        body: json(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`${marker}${String(i)}`, i]))),
      };
    case "empty":
      return { kind, body: Buffer.alloc(0) };
  }
}

/**
 * Integers no parameter may take, or not in this spelling (issue 38): below and at zero, past
 * int4, past what a JavaScript number holds exactly, past int8 and uint64, infinite, fractional,
 * hexadecimal, with a leading space.
 */
const integerEdges = [
  "-1",
  "0",
  "2147483648",
  "9007199254740992",
  "9223372036854775808",
  "18446744073709551616",
  "1e309",
  "1.5",
  "0x10",
  "%201",
];

/** Headers that take one value: sent twice, they must be refused without echoing a value. */
const singleHeaders = [
  "authorization",
  "x-platform-service-credential",
  "x-platform-service-timestamp",
  "x-platform-service-nonce",
  "x-platform-service-signature",
  "x-b2b-claim-token",
  "idempotency-key",
  "x-idempotency-key",
  "x-tenant-id",
];

/** A path parameter: a real id, or a malformed one carrying the marker. */
function pathValue(
  name: string,
  target: Target,
  random: Random,
  marker: string,
  integer: boolean,
): { kind: string; value: string } {
  const kinds = ["uuid", "marker", "long", "bad-percent", "encoded", "nul", "dots", "real"] as const;
  if (integer && random.chance(0.5)) return { kind: "integer-edge", value: random.pick(integerEdges) };
  const kind = random.pick(kinds);
  switch (kind) {
    case "uuid":
      return { kind, value: randomUUID() };
    case "marker":
      return { kind, value: marker };
    case "long":
      return { kind, value: marker + "a".repeat(random.pick([150, 300, 5000])) };
    case "bad-percent":
      return { kind, value: `%FF%FE${marker}%${random.pick(["", "G", "0"])}` };
    case "encoded":
      return { kind, value: encodeURIComponent(`${marker}/ü€💥"'<>`) };
    case "nul":
      return { kind, value: `${marker}%00` };
    case "dots":
      return { kind, value: random.pick(["..", "%2e%2e", "."]) };
    case "real":
      return {
        kind,
        value:
          name.toLowerCase().includes("connection") && target.connectionId
            ? target.connectionId
            : randomUUID(),
      };
  }
}

/** The query string, and how many integer-boundary values it carries. */
function queryFor(operation: Operation, random: Random, marker: string): { query: string; edges: number } {
  const parts: string[] = [];
  let edges = 0;
  for (const { name, schema } of operation.queryParams) {
    if (random.chance(0.5)) continue;
    const edge = schema.type === "integer" && random.chance(0.5);
    if (edge) edges++;
    const value = edge
      ? random.pick(integerEdges)
      : random.pick([
          marker,
          "-1",
          "0",
          "1000000",
          "1.5",
          `%FF${marker}`,
          `${marker}${"q".repeat(3000)}`,
          "",
          encodeURIComponent(`${marker}ä`),
        ]);
    parts.push(`${name}=${value}`);
    if (random.chance(0.2)) parts.push(`${name}=${marker}`);
  }
  if (random.chance(0.2)) parts.push(`${marker}=${marker}`);
  if (random.chance(0.05)) parts.push(`%E0%A4%A=${marker}`);
  return { query: parts.length ? `?${parts.join("&")}` : "", edges };
}

function headersFor(
  target: Target,
  random: Random,
  marker: string,
): { kind: string; headers: Record<string, string> } {
  const auth = random.pick(["admin", "admin", "none", "partner", "garbage", "long", "scheme"] as const);
  const headers: Record<string, string> = {};
  switch (auth) {
    case "admin":
      headers.authorization = `Bearer ${target.adminToken}`;
      break;
    case "partner":
      headers.authorization = `Bearer ${target.partnerToken ?? target.adminToken}`;
      break;
    case "garbage":
      headers.authorization = `Bearer ${marker}:${marker}`;
      break;
    case "long":
      headers.authorization = `Bearer ${marker}${"t".repeat(8000)}`;
      break;
    case "scheme":
      headers.authorization = `Basic ${Buffer.from(`${marker}:x`).toString("base64")}`;
      break;
    case "none":
      break;
  }
  if (random.chance(0.3))
    headers["idempotency-key"] = random.pick([marker, `${marker} with space`, marker.repeat(40)]);
  if (random.chance(0.3)) headers["x-idempotency-key"] = random.pick([marker, marker.repeat(40)]);
  if (random.chance(0.3)) headers["x-tenant-id"] = random.pick([marker, randomUUID()]);
  if (random.chance(0.2)) headers["x-b2b-claim-token"] = marker;
  // Not a well-formed correlation id (a space): it must be replaced, not echoed.
  if (random.chance(0.3)) headers["x-correlation-id"] = `${marker} !`;
  if (random.chance(0.1)) headers.accept = marker;
  return { kind: auth, headers };
}

const contentTypes = [
  "application/json",
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/edifact",
  "application/octet-stream",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "a/b/c",
  "",
];

/** Requests only a raw socket can send: what Node's parser must refuse, politely. */
function rawCase(
  target: Target,
  random: Random,
  marker: string,
): { kind: string; head: string; bodyBytes?: number; chunked?: boolean } {
  const auth = `Authorization: Bearer ${target.adminToken}`;
  const kinds = [
    "bad-request-line",
    "bad-header",
    "huge-headers",
    "bad-chunk",
    "double-length",
    "length-and-chunked",
    "oversized-keep-writing",
    "truncated-body",
    "http10",
    "absolute-form",
    "bad-version",
    "long-url",
  ] as const;
  const kind = random.pick(kinds);
  switch (kind) {
    case "bad-request-line":
      return { kind, head: `${marker} /${marker} HTTP/1.1\r\nHost: x` };
    case "bad-header":
      return { kind, head: `GET /api/v1/profile/whoami HTTP/1.1\r\nHost: x\r\nBad Name ${marker}: 1` };
    case "huge-headers":
      return { kind, head: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${marker}${"h".repeat(20_000)}` };
    case "bad-chunk":
      return {
        kind,
        head: `POST /api/v1/admin/partners HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz${marker}\r\n`,
      };
    case "double-length":
      return {
        kind,
        head: `POST /api/v1/admin/partners HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":${marker}`,
      };
    case "length-and-chunked":
      return {
        kind,
        head: `POST /api/v1/admin/partners HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /${marker} HTTP/1.1\r\nHost: x`,
      };
    case "oversized-keep-writing":
      return {
        kind,
        head: `POST /api/v1/auth/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${String(4 * 1024 * 1024)}`,
        bodyBytes: 4 * 1024 * 1024,
      };
    case "truncated-body":
      return {
        kind,
        head: `POST /api/v1/admin/partners HTTP/1.1\r\nHost: x\r\n${auth}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"${marker}`,
      };
    case "http10":
      return { kind, head: `GET /api/v1/admin/partners/${marker} HTTP/1.0\r\n${auth}` };
    case "absolute-form":
      return {
        kind,
        head: `GET http://${marker}.example/api/v1/profile/whoami HTTP/1.1\r\nHost: x\r\n${auth}`,
      };
    case "bad-version":
      return { kind, head: `GET /healthz HTTP/7.${marker}\r\nHost: x` };
    case "long-url":
      return {
        kind,
        head: `GET /api/v1/admin/partners?${marker}=${"u".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n${auth}`,
      };
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** The findings an answer to a request carrying `marker` gives rise to. */
function judge(answer: Answer, marker: string, described: string): HttpFuzzFinding[] {
  const findings: HttpFuzzFinding[] = [];
  const { status } = answer;
  if (status >= 500) {
    findings.push({
      kind: "5xx",
      request: described,
      status,
      detail: answer.body.toString("utf8").slice(0, 300),
    });
  }
  if (status < 400) return findings;
  const contentType = String(answer.headers["content-type"] ?? "");
  const correlationId = answer.headers["x-correlation-id"];
  let problem: Record<string, unknown> | undefined;
  try {
    problem = JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
  } catch {
    problem = undefined;
  }
  const wellFormed =
    contentType.startsWith("application/problem+json") &&
    problem !== undefined &&
    typeof problem.code === "string" &&
    problem.type === `urn:hanse:error:${problem.code}` &&
    typeof problem.title === "string" &&
    problem.status === status &&
    typeof problem.detail === "string" &&
    typeof correlationId === "string" &&
    problem.correlationId === correlationId;
  if (!wellFormed) {
    findings.push({
      kind: "not-problem",
      request: described,
      status,
      detail: `${contentType} ${answer.body.toString("utf8").slice(0, 200)}`,
    });
  }
  const echoed = Object.entries(answer.headers).some(
    ([name, value]) => name !== "x-correlation-id" && String(value).includes(marker),
  );
  if (echoed || answer.body.includes(marker)) {
    const at = answer.body.indexOf(marker);
    findings.push({
      kind: "echo",
      request: described,
      status,
      detail: at >= 0 ? answer.body.subarray(Math.max(0, at - 80), at + 40).toString("utf8") : "in a header",
    });
  }
  return findings;
}

/** Sets up a partner key in the system tenant (more of the partner routes get past authentication). */
async function preparePartner(target: Target): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const response = await request(`${target.base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${target.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    return response.statusCode < 300 ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  };
  const partner = await post("/api/v1/admin/partners", { name: "Fuzz partner" });
  if (!partner) return;
  const connection = await post("/api/v1/admin/connections", {
    partnerId: partner.id,
    profile: defaultProfile,
  });
  if (!connection) return;
  target.connectionId = String(connection.id);
  const key = await post("/api/v1/admin/api-keys", {
    partnerId: partner.id,
    scopes: allPartnerScopes,
  });
  if (key) target.partnerToken = String(key.token);
}

/** Starts Hanse on a temporary embedded database, fuzzes it, stops it, and reports. */
export async function fuzzHttp(options: HttpFuzzOptions): Promise<HttpFuzzReport> {
  const seed = options.seed ?? randomBytes(4).readUInt32LE(0);
  const random = generator(seed);
  const dataDir = await mkdtemp(join(tmpdir(), "hanse-http-fuzz-"));
  const adminToken = `fuzz-${randomBytes(24).toString("hex")}`;
  let errorLogs = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString("utf8").split("\n")) {
        const level = /"level":(\d+)/.exec(line)?.[1];
        if (level && Number(level) >= 50) errorLogs++;
      }
      callback();
    },
  });
  const config = loadConfig({
    HANSE_DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: "0",
    HANSE_BOOTSTRAP_TOKEN: adminToken,
    LOG_LEVEL: "warn",
  });
  let running: RunningProcess | undefined;
  const dispatcher = new Agent({ connections: 64, headersTimeout: 30_000, bodyTimeout: 30_000 });
  try {
    running = await startProcess(config, createLogger(config.LOG_LEVEL, sink));
    const base = running.url ?? "";
    const target: Target = { base, port: Number(new URL(base).port), adminToken };
    await preparePartner(target);
    const document = (await (await request(`${base}/openapi.json`)).body.json()) as Parameters<
      typeof operationsOf
    >[0];
    const { operations, schemas } = operationsOf(document);

    const counts: HttpFuzzReport["counts"] = {
      "5xx": 0,
      "not-problem": 0,
      echo: 0,
      "no-answer": 0,
      "repeat-accepted": 0,
    };
    const byStatus: Record<string, number> = {};
    const samples: HttpFuzzFinding[] = [];
    const record = (findings: HttpFuzzFinding[]) => {
      for (const finding of findings) {
        counts[finding.kind]++;
        if (samples.filter((s) => s.kind === finding.kind).length < 10) samples.push(finding);
      }
    };
    let requests = 0;
    let repeatedHeaders = 0;
    let integerEdges = 0;
    let rawRequests = 0;
    const started = Date.now();
    const deadline = started + options.seconds * 1000;
    const more = () =>
      Date.now() < deadline && (options.maxRequests === undefined || requests < options.maxRequests);

    const once = async () => {
      requests++;
      const marker = newMarker(random);
      if (random.chance(0.08)) {
        rawRequests++;
        const raw = rawCase(target, random, marker);
        const result = await rawRequest(target.port, { ...raw, timeoutMs: 20_000 });
        const response = parseResponse(result.received);
        const described = `raw ${raw.kind}`;
        if (!response) {
          const status = /^HTTP\/1\.[01] (\d{3})/.exec(result.received.toString("latin1"))?.[1];
          if (status && Number(status) < 400) return;
          record([
            { kind: "no-answer", request: described, detail: result.error ?? "closed without an answer" },
          ]);
          return;
        }
        byStatus[response.status] = (byStatus[response.status] ?? 0) + 1;
        record(judge(response, marker, described));
        return;
      }
      const operation = random.pick(operations);
      let path = operation.path;
      const kinds: string[] = [];
      for (const name of operation.pathParams) {
        const { kind, value } = pathValue(
          name,
          target,
          random,
          marker,
          operation.integerPathParams.includes(name),
        );
        kinds.push(`${name}:${kind}`);
        path = path.replace(`{${name}}`, value);
      }
      const { query, edges } = queryFor(operation, random, marker);
      integerEdges += edges + kinds.filter((kind) => kind.endsWith(":integer-edge")).length;
      const { kind: auth, headers } = headersFor(target, random, marker);
      let body: Buffer | undefined;
      let bodyKind = "none";
      if (
        operation.method !== "GET" && operation.method !== "DELETE" ? random.chance(0.9) : random.chance(0.1)
      ) {
        const made = bodyFor(operation, schemas, random, marker);
        body = made.body;
        bodyKind = made.kind;
        const type = random.pick(contentTypes);
        if (type) headers["content-type"] = type;
      }
      // One in ten requests repeats a header that takes one value (two more copies of it).
      const repeated = random.chance(0.1) ? random.pick(singleHeaders) : undefined;
      const copies = repeated ? [repeated, `${marker}-1`, repeated, `${marker}-2`] : [];
      const described = `${operation.method} ${operation.path} [${kinds.join(",")}] auth:${auth} body:${bodyKind} ${headers["content-type"] ?? ""}${repeated ? ` twice:${repeated}` : ""}`;
      try {
        const response = await request(`${base}${path}${query}`, {
          method: operation.method as "GET",
          headers: [...Object.entries(headers).flat(), ...copies],
          ...(body ? { body } : {}),
          dispatcher,
        });
        const answer = {
          status: response.statusCode,
          headers: response.headers,
          body: Buffer.from(await response.body.arrayBuffer()),
        };
        byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
        record(judge(answer, marker, described));
        if (repeated) repeatedHeaders++;
        if (repeated && answer.status < 400) {
          record([{ kind: "repeat-accepted", request: described, status: answer.status, detail: repeated }]);
        }
      } catch (error) {
        const code = (error as { code?: string }).code ?? "";
        // The client refused to send it (an invalid header value): nothing reached the server.
        if (code === "UND_ERR_INVALID_ARG" || (error as Error).name === "InvalidArgumentError") {
          requests--;
          return;
        }
        record([
          {
            kind: "no-answer",
            request: described,
            detail: `${code} ${(error as Error).message}`.slice(0, 200),
          },
        ]);
      }
    };

    const concurrency = options.concurrency ?? 16;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (more()) await once();
      }),
    );
    return {
      seed,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      operations: operations.length,
      requests,
      rawRequests,
      byStatus,
      counts,
      errorLogs,
      repeatedHeaders,
      integerEdges,
      samples,
    };
  } finally {
    await dispatcher.close();
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** `npm run fuzz -- http [--seconds N] [--requests N] [--seed N] [--concurrency N]`; returns the exit code. */
export async function runHttpFuzz(args: string[]): Promise<number> {
  const option = (name: string) => {
    const at = args.indexOf(`--${name}`);
    const value = at >= 0 ? Number(args[at + 1]) : undefined;
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw new Error(`--${name} takes a whole number`);
    return value;
  };
  const maxRequests = option("requests");
  const seed = option("seed");
  const concurrency = option("concurrency");
  const report = await fuzzHttp({
    seconds: option("seconds") ?? 60,
    ...(maxRequests !== undefined ? { maxRequests } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
  });
  console.log(JSON.stringify(report, null, 2));
  const found = Object.values(report.counts).reduce((a, b) => a + b, 0) + report.errorLogs;
  console.log(
    `${String(report.requests)} requests (${String(report.rawRequests)} raw) against ${String(report.operations)} operations in ` +
      `${String(report.seconds)} s, seed ${String(report.seed)}: ${String(report.counts["5xx"])} 5xx, ` +
      `${String(report.counts["not-problem"])} not problem+json, ${String(report.counts.echo)} echoes, ` +
      `${String(report.counts["no-answer"])} without an answer, ` +
      `${String(report.counts["repeat-accepted"])} repeated headers accepted (of ${String(report.repeatedHeaders)}), ` +
      `${String(report.integerEdges)} integer-boundary values, ${String(report.errorLogs)} error log lines`,
  );
  return found === 0 ? 0 : 1;
}
