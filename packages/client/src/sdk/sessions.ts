import type { Entrypoint } from "../protocol/index.js";
import { createPublishedCall, type PageQuery } from "./published-call.js";
import type { ListItem } from "./api.js";
import type { Transport } from "./http.js";
import type { Page } from "./types.js";

/** The published entry of sign-in, sign-out and the user's own sessions (public entrypoints). */
export const authSessionsEntryId = "auth.sessions";

/** One of the signed-in user's open sessions (rules/contract §7); never its token. */
export type UserSession = ListItem<"listSessions">;

/** The signed-in user's sessions, through the published `auth.sessions` actions `list` and `end`. */
export interface SessionsApi {
  /** Open sessions, oldest first (a user session only: an access token is 403). */
  list(query?: PageQuery): Promise<Page<UserSession>>;
  /** Ends one of them (its token is refused from then on); another user's or unknown: 404. */
  end(id: string): Promise<void>;
}

export function createSessionsApi(
  transport: Transport,
  findPublicEntry: (id: string) => Promise<Entrypoint>,
): SessionsApi {
  const call = createPublishedCall(transport, findPublicEntry);
  return {
    list: (query = {}) => call<Page<UserSession>>(authSessionsEntryId, "list", {}, { query }),
    async end(id) {
      await call<unknown>(authSessionsEntryId, "end", { id });
    },
  };
}
