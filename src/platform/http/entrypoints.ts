import type { TSchema } from "@sinclair/typebox";
import type { Entrypoint, EntrypointAction } from "@hanse/client/protocol";
import type { Scope, TenantType } from "@hanse/client/protocol";
import { hasAnyScope, type Principal } from "../auth/principal.js";

export interface ActionDefinition extends Omit<EntrypointAction, "statusRequiredAnyScopes"> {
  /** The session needs at least one of these for the action to be listed. */
  anyScopes: readonly Scope[];
  statusRequiredAnyScopes?: readonly Scope[];
}

/** What a module publishes in the authenticated entrypoint list. */
export interface EntrypointDefinition {
  id: string;
  kind: "crud" | "system-resource";
  href: string;
  /** Tenant types that see this entry; the type is read from the database per request. */
  tenantTypes: readonly TenantType[];
  actions: readonly ActionDefinition[];
  /** `crud` entries: JSON Schemas served at their `metaHref`. */
  schemas?: { create: TSchema; update: TSchema | null; item: TSchema };
}

export const metaHrefFor = (id: string): string =>
  `/api/v1/profile/entrypoints/${encodeURIComponent(id)}/meta`;

export interface EntrypointRegistry {
  register(...definitions: EntrypointDefinition[]): void;
  /** The entries and actions this principal may use; an entry without allowed actions is absent. */
  visibleTo(principal: Principal): Entrypoint[];
  /** `{"entrypoints": visibleTo(principal)}` as JSON text, serialized once per combination. */
  visibleJsonTo(principal: Principal): string;
  find(id: string): EntrypointDefinition | undefined;
  /** Every registered entry (test/e2e/entrypoint-routes.test.ts checks them against the routes). */
  all(): EntrypointDefinition[];
}

export function createEntrypointRegistry(): EntrypointRegistry {
  const definitions = new Map<string, EntrypointDefinition>();
  // The list depends only on tenant type and scopes, so it is computed once per combination.
  const cache = new Map<string, Entrypoint[]>();
  const jsonCache = new Map<string, string>();
  const cacheKey = (principal: Principal) =>
    `${principal.tenant.type}|${[...principal.scopes].sort().join(" ")}`;
  return {
    register(...items) {
      for (const item of items) {
        if (definitions.has(item.id)) throw new Error(`entrypoint ${item.id} registered twice`);
        definitions.set(item.id, item);
      }
      cache.clear();
      jsonCache.clear();
    },
    find: (id) => definitions.get(id),
    all: () => [...definitions.values()],
    visibleJsonTo(principal) {
      const key = cacheKey(principal);
      let json = jsonCache.get(key);
      if (json === undefined) {
        json = JSON.stringify({ entrypoints: this.visibleTo(principal) });
        if (jsonCache.size < 1024) jsonCache.set(key, json);
      }
      return json;
    },
    visibleTo(principal) {
      const key = cacheKey(principal);
      const cached = cache.get(key);
      if (cached) return cached;
      const out: Entrypoint[] = [];
      for (const definition of definitions.values()) {
        if (!definition.tenantTypes.includes(principal.tenant.type)) continue;
        const actions: EntrypointAction[] = [];
        for (const { anyScopes, statusRequiredAnyScopes, ...action } of definition.actions) {
          if (!hasAnyScope(principal, anyScopes)) continue;
          actions.push(
            statusRequiredAnyScopes
              ? { ...action, statusRequiredAnyScopes: [...statusRequiredAnyScopes] }
              : action,
          );
        }
        if (actions.length === 0) continue;
        out.push({
          id: definition.id,
          kind: definition.kind,
          href: definition.href,
          ...(definition.kind === "crud" ? { metaHref: metaHrefFor(definition.id) } : {}),
          actions,
        });
      }
      if (cache.size < 1024) cache.set(key, out);
      return out;
    },
  };
}

/** The usual actions of an admin collection: read scopes list and read, write scopes create. */
export function crudActions(
  href: string,
  scopes: { read: Scope; write: Scope },
  extra: readonly ActionDefinition[] = [],
): ActionDefinition[] {
  return [
    { id: "list", method: "GET", href, anyScopes: [scopes.read] },
    { id: "read", method: "GET", href: `${href}/{id}`, anyScopes: [scopes.read] },
    { id: "create", method: "POST", href, anyScopes: [scopes.write] },
    ...extra,
  ];
}
