import type { Command } from "commander";
import { partnerScopes } from "../protocol/index.js";
import type { AccessToken, ApiKey } from "../sdk/admin-collections.js";
import {
  commaList,
  jsonOption,
  orDash,
  partnerFilter,
  registerGet,
  registerItemAction,
  registerList,
  renderFields,
} from "./collection.js";
import type { Runtime } from "./runtime.js";

const stateOf = (item: { revokedAt: string | null; expiresAt?: string | null }): string =>
  item.revokedAt !== null
    ? `revoked ${item.revokedAt}`
    : item.expiresAt && Date.parse(item.expiresAt) <= Date.now()
      ? `expired ${item.expiresAt}`
      : "active";

const renderApiKey = (k: ApiKey) =>
  renderFields([
    ["ID", k.id],
    ["Name", k.name],
    ["Partner", k.partnerId],
    ["Scopes", k.scopes.join(", ")],
    ["Connections", k.connectionIds === null ? "all of the partner's" : k.connectionIds.join(", ")],
    ["State", stateOf(k)],
    ["Created", k.createdAt],
  ]);

const renderAccessToken = (t: AccessToken) =>
  renderFields([
    ["ID", t.id],
    ["Name", t.name],
    ["Scopes", t.scopes.join(", ")],
    ["Expires", orDash(t.expiresAt)],
    ["State", stateOf(t)],
    ["Created by", orDash(t.createdBy)],
    ["Created", t.createdAt],
  ]);

const shownOnce = "This secret is shown only now and cannot be read again: store it safely.";

/**
 * `hanse api-keys …` (partner API keys, admin.apiKeys) and `hanse access-tokens …` (the tenant's
 * bearer tokens, admin.accessTokens). A secret appears once, in the answer to `create`; no other
 * command prints one.
 */
export function registerKeysCommands(program: Command, rt: Runtime): void {
  const keys = rt.command(program, "api-keys").description("Partner API keys (admin.apiKeys)");
  registerList<ApiKey>(rt, keys, {
    description: "List the tenant's partner API keys (never a secret)",
    empty: "No API keys.",
    filters: [partnerFilter("keys")],
    columns: [
      ["ID", (k) => k.id],
      ["PARTNER", (k) => k.partnerId],
      ["STATE", stateOf],
      ["NAME", (k) => k.name],
    ],
    fetch: (client, query) => client.admin.apiKeys.list(query),
  });
  registerGet<ApiKey>(rt, keys, {
    description: "Show one API key (never its secret)",
    argument: "key-id",
    fetch: (client, id) => client.admin.apiKeys.get(id),
    render: renderApiKey,
  });
  jsonOption(rt.command(keys, "create"))
    .description("Issue a partner API key; its secret is printed once")
    .requiredOption("--partner <partner-id>", "the partner")
    .option("--scopes <list>", `comma-separated (default: all, ${partnerScopes.join(",")})`, commaList)
    .option(
      "--connections <list>",
      "comma-separated connection ids (default: all of the partner's)",
      commaList,
    )
    .option("--name <name>", "a name to recognise it by")
    .action(
      rt.action(
        async (options: {
          partner: string;
          scopes?: string[];
          connections?: string[];
          name?: string;
          json?: boolean;
        }) => {
          const created = await (
            await rt.client()
          ).admin.apiKeys.create({
            partnerId: options.partner,
            scopes: options.scopes ?? [...partnerScopes],
            ...(options.connections ? { connectionIds: options.connections } : {}),
            ...(options.name === undefined ? {} : { name: options.name }),
          });
          rt.emit(options.json, created, () =>
            [
              `created API key ${created.id}`,
              renderApiKey(created),
              `Key:         ${created.token}`,
              "",
              shownOnce,
              "The partner client reads it from the environment: export HANSE_PARTNER_KEY='<key>'",
            ].join("\n"),
          );
        },
      ),
    );
  registerItemAction<ApiKey>(rt, keys, {
    name: "revoke",
    description: "Revoke an API key at once",
    argument: "key-id",
    run: (client, id) => client.admin.apiKeys.revoke(id),
    render: (k) => `revoked API key ${k.id} (${k.name})`,
  });

  const tokens = rt
    .command(program, "access-tokens")
    .description("The tenant's access tokens for scripts and services (admin.accessTokens)");
  registerList<AccessToken>(rt, tokens, {
    description: "List the tenant's access tokens (never a secret)",
    empty: "No access tokens.",
    columns: [
      ["ID", (t) => t.id],
      ["STATE", stateOf],
      ["EXPIRES", (t) => orDash(t.expiresAt)],
      ["NAME", (t) => t.name],
    ],
    fetch: (client, query) => client.admin.accessTokens.list(query),
  });
  registerGet<AccessToken>(rt, tokens, {
    description: "Show one access token (never its secret)",
    argument: "token-id",
    fetch: (client, id) => client.admin.accessTokens.get(id),
    render: renderAccessToken,
  });
  jsonOption(rt.command(tokens, "create"))
    .description("Issue an access token; it is printed once")
    .requiredOption("--name <name>", "a name to recognise it by")
    .requiredOption("--scopes <list>", "comma-separated scopes, e.g. admin:read", commaList)
    .option("--expires-at <time>", "RFC 3339 time it stops working (default: never)")
    .action(
      rt.action(async (options: { name: string; scopes: string[]; expiresAt?: string; json?: boolean }) => {
        const created = await (
          await rt.client()
        ).admin.accessTokens.create({
          name: options.name,
          scopes: options.scopes,
          ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
        });
        rt.emit(options.json, created, () =>
          [
            `created access token ${created.id}`,
            renderAccessToken(created),
            `Token:       ${created.token}`,
            "",
            shownOnce,
            "Use it as HANSE_TOKEN (or Authorization: Bearer <token>).",
          ].join("\n"),
        );
      }),
    );
  registerItemAction<AccessToken>(rt, tokens, {
    name: "revoke",
    description: "Revoke an access token at once",
    argument: "token-id",
    run: (client, id) => client.admin.accessTokens.revoke(id),
    render: (t) => `revoked access token ${t.id} (${t.name})`,
  });
}
