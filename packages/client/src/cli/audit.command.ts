import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import type { AuditEvent, AuditVerification } from "../sdk/admin-collections.js";
import { jsonOption, orDash, registerGet, registerList, renderFields } from "./collection.js";
import { CLI_EXIT, CliError, type Runtime } from "./runtime.js";

const who = (e: AuditEvent) => (e.principalId === null ? "-" : `${orDash(e.principalKind)} ${e.principalId}`);
const what = (e: AuditEvent) =>
  e.targetType === null ? orDash(e.connectionId ?? e.uploadId) : `${e.targetType} ${orDash(e.targetId)}`;

const renderAuditEvent = (e: AuditEvent) =>
  renderFields([
    ["ID", e.id],
    ["Type", e.type],
    ["Time", e.occurredAt],
    ["Principal", who(e)],
    ["Target", e.targetType === null ? "-" : `${e.targetType} ${orDash(e.targetId)}`],
    ["Changes", e.changes === null ? "-" : e.changes.join(", ")],
    ["Method", orDash(e.method)],
    ["Source address", orDash(e.sourceAddress)],
    ["Correlation id", orDash(e.correlationId)],
    ["Connection", orDash(e.connectionId)],
    ["Upload", orDash(e.uploadId)],
    ["Delivery", orDash(e.deliveryAttemptId)],
    ["Bytes", orDash(e.byteCount)],
    ["Outcome", orDash(e.outcome)],
  ]);

const renderVerification = (v: AuditVerification) => {
  const lines = [
    v.verified
      ? `verified: ${String(v.count)} sealed records, checked through ${v.checkedThrough}`
      : `NOT VERIFIED: ${String(v.count)} records verified before the first problem`,
  ];
  if (v.problem) {
    const record = v.problem.eventId === null ? "at the chain's end" : `record ${v.problem.eventId}`;
    lines.push(`problem: ${v.problem.kind} at sequence ${String(v.problem.sequence)} (${record})`);
  }
  if (v.head) lines.push(`head: ${String(v.head.sequence)}:${v.head.hash}`);
  if (v.unsealed > 0) lines.push(`not sealed yet: ${String(v.unsealed)} (sealed within seconds)`);
  return lines.join("\n");
};

/** `hanse audit list|get|verify|export`: the tenant's audit trail (rules/contract §7, admin.auditEvents). */
export function registerAuditCommands(program: Command, rt: Runtime): void {
  const audit = rt
    .command(program, "audit")
    .description("The tenant's audit trail: every administrative act and sign-in (admin.auditEvents)");
  registerList<AuditEvent>(rt, audit, {
    description: "List audit records, oldest first (--order desc: newest first)",
    empty: "No audit records.",
    filters: [
      {
        flags: "--type <type>",
        description: "one type (user.updated) or a prefix ending in a dot (user.)",
        query: "type",
      },
      { flags: "--principal <id>", description: "only the acts of this principal", query: "principalId" },
      { flags: "--target <id>", description: "only the acts on this object", query: "targetId" },
      {
        flags: "--from <time>",
        description: "occurred at or after, e.g. 2026-11-27T00:00:00Z",
        query: "occurredFrom",
      },
      { flags: "--before <time>", description: "occurred before (exclusive)", query: "occurredBefore" },
    ],
    columns: [
      ["TIME", (e) => e.occurredAt],
      ["TYPE", (e) => e.type],
      ["WHO", who],
      ["WHAT", what],
      ["ID", (e) => e.id],
    ],
    fetch: (client, query) => client.admin.auditEvents.list(query),
  });
  registerGet<AuditEvent>(rt, audit, {
    description: "Show one audit record",
    argument: "event-id",
    fetch: (client, id) => client.admin.auditEvents.get(id),
    render: renderAuditEvent,
  });
  jsonOption(rt.command(audit, "verify"))
    .description(
      "Check the trail's hash chain up to its last seal; exit 2 when a record was changed, removed or reordered",
    )
    .action(
      rt.action(async (options: { json?: boolean }) => {
        const verification = await (await rt.client()).admin.auditEvents.verify();
        rt.emit(options.json, verification, () => renderVerification(verification));
        if (!verification.verified)
          throw new CliError("the audit trail does not verify", CLI_EXIT.checkFailed);
      }),
    );
  rt.command(audit, "export")
    .description("Write the trail (NDJSON, chain order, each record with its seal) to stdout or --out FILE")
    .option("--from <time>", "the records that occurred at or after this time")
    .option("--before <time>", "… and before this time")
    .option("--out <file>", "write to this file instead of stdout")
    .action(
      rt.action(async (options: { from?: string; before?: string; out?: string }) => {
        const bytes = await (
          await rt.client()
        ).admin.auditEvents.export({
          ...(options.from === undefined ? {} : { occurredFrom: options.from }),
          ...(options.before === undefined ? {} : { occurredBefore: options.before }),
        });
        if (options.out === undefined) {
          rt.io.stdout.write(bytes);
          return;
        }
        await writeFile(options.out, bytes);
        rt.emit(
          false,
          null,
          () => `wrote ${String(bytes.length)} bytes of audit records to ${String(options.out)}`,
        );
      }),
    );
}
