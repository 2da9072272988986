import type { Command } from "commander";
import type { Entrypoint } from "../protocol/index.js";
import { isUsableKind } from "../sdk/entrypoints.js";
import type { Runtime } from "./runtime.js";

/** `hanse discover`: public discovery plus, when logged in, the session's entrypoints. */
export function registerDiscoverCommand(program: Command, rt: Runtime): void {
  rt.command(program, "discover")
    .description("Show public discovery and the entrypoints this session may use")
    .option("--json", "machine-readable output")
    .action(
      rt.action(async (options: { json?: boolean }) => {
        const client = await rt.client({ requireToken: false });
        const [discovery, publicEntrypoints] = await Promise.all([
          client.discovery(),
          client.publicEntrypoints(),
        ]);
        const entrypoints = client.authenticated ? await client.entrypoints() : null;
        if (options.json) {
          rt.printJson({ url: client.baseUrl, discovery, publicEntrypoints, entrypoints });
          return;
        }
        const lines = [
          `Hanse at ${client.baseUrl}`,
          `  API major:      ${discovery.apiMajor}`,
          `  Server version: ${discovery.serverVersion}`,
          `  Build:          commit ${discovery.build.commit ?? "-"}, built ${discovery.build.builtAt ?? "-"}`,
          `  Capabilities:   ${discovery.capabilities.join(", ") || "none"}`,
          ...(discovery.entitlements
            ? [
                `  Entitlements:   issuer ${discovery.entitlements.issuer}, JWKS ${discovery.entitlements.jwksUri}`,
              ]
            : []),
          "Public entrypoints:",
          ...renderEntrypoints(publicEntrypoints),
          "Session entrypoints:",
          ...(entrypoints === null
            ? ["  (not logged in: run `hanse login` or set HANSE_TOKEN)"]
            : renderEntrypoints(entrypoints)),
        ];
        rt.print(lines.join("\n"));
      }),
    );
}

function renderEntrypoints(entries: readonly Entrypoint[]): string[] {
  if (entries.length === 0) return ["  (none)"];
  const lines: string[] = [];
  for (const entry of entries) {
    if (!isUsableKind(entry.kind)) {
      lines.push(`  ${entry.id} (${entry.kind}): unknown kind, not usable`);
      continue;
    }
    lines.push(
      `  ${entry.id} (${entry.kind})  ${entry.href}${entry.metaHref ? `  meta ${entry.metaHref}` : ""}`,
    );
    for (const action of entry.actions) {
      const notes = [
        ...(action.requiredHeaders?.length ? [`requires ${action.requiredHeaders.join(", ")}`] : []),
        ...(action.acceptedStatus !== undefined ? [`answers ${action.acceptedStatus}`] : []),
        ...(action.statusHref ? [`status ${action.statusHref}`] : []),
      ];
      lines.push(
        `    ${action.id.padEnd(8)} ${action.method.padEnd(6)} ${action.href}${notes.length ? `  [${notes.join("; ")}]` : ""}`,
      );
    }
  }
  return lines;
}
