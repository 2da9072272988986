import type { Entrypoint } from "../protocol/index.js";
import { expandAction, selectAction } from "./entrypoints.js";
import type { Transport } from "./http.js";

export type PageQuery = { limit?: number | undefined; cursor?: string | undefined };

/** A page request with the filters a list route takes (`type`, `kind`, …); undefined ones are left out. */
export type ListQuery = PageQuery & { readonly [filter: string]: string | number | undefined };

/** Calls one action of a published entry (rules/interface B: the path comes from the server, never guessed). */
export type PublishedCall = <T>(
  entryId: string,
  actionId: string,
  values?: Record<string, string>,
  extra?: { body?: unknown; query?: ListQuery; binary?: boolean },
) => Promise<T>;

export function createPublishedCall(
  transport: Transport,
  findEntry: (id: string) => Promise<Entrypoint>,
): PublishedCall {
  return async <T>(
    entryId: string,
    actionId: string,
    values: Record<string, string> = {},
    extra: { body?: unknown; query?: ListQuery; binary?: boolean } = {},
  ): Promise<T> => {
    const action = selectAction(await findEntry(entryId), actionId);
    const answer = await transport.send<T>({
      method: action.method,
      href: expandAction(action.href, values),
      ...(extra.body === undefined ? {} : { body: extra.body }),
      ...(extra.query ? { query: { ...extra.query } } : {}),
      ...(extra.binary ? { binary: true } : {}),
    });
    return answer.body;
  };
}
