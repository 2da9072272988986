/**
 * The service side of the entitlements bench: signed requests (rules/contract §5) as a separately
 * deployed service sends them, for autocannon (`signedRequests`) and for the bench's feed and
 * snapshot readers, which run in a process of their own (`readAll`).
 */
import { createServiceClient } from "../../packages/client/src/sdk/entitlements.js";
import { Agent, request } from "undici";
import { signedHeaders, type ServiceCredential } from "../../test/support/service-signer.js";

export const serviceBase = "/api/v1/public/v1/app-entitlements";

/** The bench's actors: `a000000`, `a000001`, … (the seeding SQL spells them the same way). */
export const benchActorId = (i: number): string => `a${String(i).padStart(6, "0")}`;

/**
 * autocannon's `setupRequest` hook (see `load` in ./load.ts): every request goes to `pathPrefix`
 * plus a random one of `actors` actors, signed with a fresh nonce and the current timestamp.
 */
export function signedRequests(argument: {
  credential: ServiceCredential;
  method: string;
  pathPrefix: string;
  actors: number;
}) {
  return <R extends { headers?: Record<string, string> }>(request: R) => {
    const path = `${argument.pathPrefix}${benchActorId(Math.floor(Math.random() * argument.actors))}`;
    return {
      ...request,
      method: argument.method,
      path,
      headers: { ...request.headers, ...signedHeaders(argument.credential, argument.method, path) },
    };
  };
}

export interface Service {
  baseUrl: string;
  credential: ServiceCredential;
}

const dispatcher = new Agent({ connections: 1, pipelining: 1 });

export async function signedGet<T>(service: Service, target: string): Promise<{ status: number; body: T }> {
  const response = await request(`${service.baseUrl}${target}`, {
    headers: signedHeaders(service.credential, "GET", target),
    dispatcher,
  });
  return { status: response.statusCode, body: (await response.body.json()) as T };
}

interface SnapshotPage {
  asOfSequence: number;
  items: { actorId: string }[];
  meta: { hasMore: boolean; nextCursor: string | null };
}

async function getPage<T>(service: Service, target: string): Promise<T> {
  const { status, body } = await signedGet<T>(service, target);
  if (status !== 200) throw new Error(`GET ${target.split("?")[0] ?? ""}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** Change iteration from `afterSequence` until the feed has no more: the SDK's (issue 21's figure). */
export async function* sdkChangeIteration(
  service: Service,
  options: { afterSequence: number; limit: number },
): AsyncGenerator<unknown[]> {
  const client = createServiceClient({
    baseUrl: service.baseUrl,
    credentialId: service.credential.credentialId,
    secret: service.credential.secret,
  });
  for await (const page of client.changes(options)) yield page.items;
}

/** Snapshot iteration at `limit` per page, every page pinned at the first page's `asOfSequence`. */
export async function* benchSnapshotIteration(
  service: Service,
  options: { limit: number },
): AsyncGenerator<SnapshotPage["items"]> {
  let body = await getPage<SnapshotPage>(service, `${serviceBase}/service/snapshot?limit=${options.limit}`);
  const asOf = body.asOfSequence;
  for (;;) {
    yield body.items;
    if (!body.meta.nextCursor) return;
    body = await getPage<SnapshotPage>(
      service,
      `${serviceBase}/service/snapshot?limit=${options.limit}&asOfSequence=${asOf}&cursor=${encodeURIComponent(body.meta.nextCursor)}`,
    );
  }
}

export interface ReadFigures {
  pages: number;
  items: number;
  seconds: number;
}

/** Reads the whole feed (from sequence 0) or a whole snapshot; what the reader process runs. */
export async function readAll(options: {
  service: Service;
  what: "changes" | "snapshot";
  limit: number;
}): Promise<ReadFigures> {
  const start = performance.now();
  const pages =
    options.what === "changes"
      ? sdkChangeIteration(options.service, { afterSequence: 0, limit: options.limit })
      : benchSnapshotIteration(options.service, { limit: options.limit });
  let count = 0;
  let items = 0;
  for await (const page of pages) {
    count++;
    items += page.length;
  }
  const seconds = (performance.now() - start) / 1000;
  await dispatcher.close();
  return { pages: count, items, seconds };
}
