/** Shapes of discovery documents (rules/contract §3), shared by server, SDK and CLI. */
export interface EntrypointAction {
  id: string;
  method: string;
  href: string;
  requiredHeaders?: string[];
  acceptedStatus?: number;
  responseHeaders?: string[];
  statusHref?: string;
  statusRequiredAnyScopes?: string[];
}

export interface Entrypoint {
  id: string;
  kind: string;
  href: string;
  metaHref?: string;
  actions: EntrypointAction[];
}

export interface EntrypointList {
  entrypoints: Entrypoint[];
}

/** Kinds a client knows how to use; anything else is unusable (rules/interface B). */
export const usableEntrypointKinds = ["crud", "system-resource", "auth"] as const;

export interface Discovery {
  apiMajor: number;
  serverVersion: string;
  build: { commit: string | null; builtAt: string | null };
  capabilities: string[];
  entitlements?: { issuer: string; jwksUri: string };
}

export interface Whoami {
  principal: { id: string; kind: string; name: string };
  tenant: { id: string; slug: string; type: "system" | "customer" };
  scopes: string[];
}

/** Expand `{name}` placeholders of an action href template. */
export const expandHref = (template: string, values: Record<string, string>): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`missing value for {${name}}`);
    return encodeURIComponent(value);
  });
