import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { printable } from "./table.js";
import type { Delivery, Entity, SegmentTree, Upload, UploadFinding } from "../sdk/admin-collections.js";
import type { HanseClient } from "../sdk/client.js";
import type { TransitionRequestStatus } from "../sdk/workflows.js";
import {
  jsonOption,
  type Filter,
  orDash,
  partnerFilter,
  registerGet,
  registerItemAction,
  registerList,
  renderFields,
} from "./collection.js";
import { parseJsonObject } from "./options.js";
import type { Runtime } from "./runtime.js";
import { renderColumns } from "./table.js";

const where = (f: UploadFinding): string =>
  [
    f.messageReference ? `message ${f.messageReference}` : "",
    f.segment ? `segment ${f.segment}` : "",
    f.position === null ? "" : `position ${f.position}`,
    f.element ? `element ${f.element}` : "",
  ]
    .filter((part) => part !== "")
    .join(", ") || "interchange";

/** An upload: its state, why it was rejected or failed and what it produced, as far as the answer tells. */
function renderUpload(u: Upload): string {
  const parts = [
    renderFields([
      ["ID", u.id],
      ["Partner", `${u.partnerName} (${u.partnerId})`],
      ["Connection", `${u.connectionName} (${u.connectionId})`],
      ["Interchange", orDash(u.interchangeId)],
      ["Status", u.status],
      ["Error", orDash(u.error)],
      ["Bytes", String(u.byteCount)],
      ["Profile", `revision ${u.profileRevision}`],
      ["Received", u.createdAt],
      ["Completed", orDash(u.completedAt)],
    ]),
  ];
  if (u.findings !== undefined) {
    parts.push(
      u.findings.length === 0
        ? "Findings: none"
        : `Findings:\n${renderColumns([
            ["  CODE", "LEVEL", "WHERE", "TEXT"],
            ...u.findings.map((f) => [`  ${f.code}`, orDash(f.level), where(f), orDash(f.message)]),
          ])}`,
    );
  }
  if (u.outbound !== undefined) {
    parts.push(
      u.outbound.length === 0
        ? "Outbound: none"
        : `Outbound:\n${renderColumns([
            ["  DELIVERY", "TYPE", "STATUS", "INTERCHANGE", "ANSWERS"],
            ...u.outbound.map((o) => [
              `  ${o.deliveryAttemptId}`,
              o.messageType,
              o.status,
              o.interchangeId,
              o.answersMessageReference === null ? "interchange" : `message ${o.answersMessageReference}`,
            ]),
          ])}`,
    );
  }
  return parts.join("\n");
}

const findingLine = (f: UploadFinding): string =>
  `[${f.code}] ${f.message}${f.element === null ? "" : ` (element ${f.element})`}`;

/** A segment tree as `hanse edi inspect` prints it, each segment's findings under it. */
function renderSegments(tree: SegmentTree): string {
  const lines: string[] = [];
  for (const s of tree.segments) {
    const indent = "  ".repeat(s.depth);
    lines.push(
      `${String(s.position).padStart(5)} ${indent}${s.group === null ? "" : `${s.group} `}${printable(s.text)}`,
    );
    for (const f of s.findings) lines.push(`      ${indent}^ ${f.level} ${findingLine(f)}`);
  }
  for (const f of tree.findings) lines.push(`finding: ${f.level} ${where(f)}: ${findingLine(f)}`);
  for (const note of tree.notes) lines.push(`note: ${note}`);
  return lines.join("\n");
}

/**
 * `content <id> [--out FILE]` and `segments <id>` of a stored interchange: the bytes exactly (to
 * stdout or a file) and the segment tree. Both reads are audited on the server.
 */
function registerInterchangeReads(
  rt: Runtime,
  parent: Command,
  noun: "upload" | "delivery",
  reads: (client: HanseClient) => HanseClient["admin"]["uploads" | "deliveries"],
): void {
  const argument = `${noun}-id`;
  jsonOption(rt.command(parent, "content"))
    .description(`Write the ${noun}'s bytes exactly as stored to stdout or --out FILE (audited)`)
    .argument(`<${argument}>`, `the ${argument}`)
    .option("--out <file>", "write the bytes to this file instead of stdout")
    .action(
      rt.action(async (id: string, options: { out?: string; json?: boolean }) => {
        const bytes = await reads(await rt.client()).content(id);
        if (options.out !== undefined) await writeFile(options.out, bytes);
        else if (options.json !== true) {
          rt.io.stdout.write(bytes);
          return;
        }
        const out = options.out;
        rt.emit(
          options.json,
          out === undefined
            ? { id, byteCount: bytes.length, contentBase64: bytes.toString("base64") }
            : { id, byteCount: bytes.length, file: out },
          () => `wrote ${String(bytes.length)} bytes of ${noun} ${id} to ${String(out)}`,
        );
      }),
    );
  registerItemAction<SegmentTree>(rt, parent, {
    name: "segments",
    description: `Print the ${noun} as a segment tree with group names${noun === "upload" ? " and its findings" : ""} (audited)`,
    argument,
    run: (client, id) => reads(client).segments(id),
    render: renderSegments,
  });
}

const renderDelivery = (d: Delivery) =>
  renderFields([
    ["ID", d.id],
    ["Partner", `${d.partnerName} (${d.partnerId})`],
    ["Connection", `${d.connectionName} (${d.connectionId})`],
    ["Upload", d.uploadId],
    ["Message", `${d.messageType} ${d.messageReference} in interchange ${d.interchangeId}`],
    ["Answers", orDash(d.inboundInterchangeId)],
    ["Status", d.status],
    ["Attempts", String(d.attempts)],
    ["Due", d.dueAt],
    ["Lease until", orDash(d.leaseExpiresAt)],
    ["Payload", `${d.payloadSize} bytes, SHA-256 ${d.payloadSha256}`],
    ["Receipt", d.receiptId === null ? "-" : `${d.receiptId} at ${orDash(d.acknowledgedAt)}`],
    ["Created", d.createdAt],
    ["Re-sends", orDash(d.resentFrom)],
    ["Overdue since", orDash(d.overdueSince)],
  ]);

/** The filters both operator lists take (the routes' `connectionId`, `status`, `from`, `to`). */
const listFilters = (statuses: string): Filter[] => [
  { flags: "--connection <connection-id>", description: "only this connection's", query: "connectionId" },
  { flags: "--status <status>", description: `${statuses}; several separated by commas`, query: "status" },
  { flags: "--from <time>", description: "created at or after, e.g. 2026-11-27T00:00:00Z", query: "from" },
  { flags: "--to <time>", description: "created before (exclusive)", query: "to" },
];

const renderEntity = (e: Entity) =>
  renderFields([
    ["ID", e.id],
    ["Kind", e.kind],
    ["State", e.state],
    ["Version", String(e.version)],
    ["Attributes", JSON.stringify(e.attributes)],
    ["Created", e.createdAt],
    ["Updated", e.updatedAt],
  ]);

/**
 * The operator views (`hanse uploads`, `hanse deliveries`, `hanse audit`) and workflow entities
 * (`hanse entities`), through the published admin entries.
 */
export function registerOperationsCommands(program: Command, rt: Runtime): void {
  const uploads = rt
    .command(program, "uploads")
    .description("Received interchanges: status and why one was rejected (admin.exchangeUploads)");
  registerList<Upload>(rt, uploads, {
    description: "List uploads, oldest first (--order desc: newest first)",
    empty: "No uploads.",
    filters: [
      ...listFilters("received, processing, processed, rejected or failed"),
      partnerFilter("uploads"),
      {
        flags: "--interchange-reference <reference>",
        description: "only the interchange with this control reference (UNB 0020)",
        query: "interchangeReference",
      },
      {
        flags: "--document-number <number>",
        description:
          "only interchanges with a message of this document number (BGM 1004), e.g. an order number",
        query: "documentNumber",
      },
    ],
    columns: [
      ["ID", (u) => u.id],
      ["RECEIVED", (u) => u.createdAt],
      ["PARTNER", (u) => u.partnerName],
      ["CONNECTION", (u) => u.connectionName],
      ["STATUS", (u) => u.status],
      ["BYTES", (u) => String(u.byteCount)],
      ["INTERCHANGE", (u) => orDash(u.interchangeId)],
      ["ERROR", (u) => orDash(u.error)],
    ],
    fetch: (client, query) => client.admin.uploads.list(query),
  });
  registerGet<Upload>(rt, uploads, {
    description: "Show one upload: status, error, its findings and the outbound messages it produced",
    argument: "upload-id",
    fetch: (client, id) => client.admin.uploads.get(id),
    render: renderUpload,
  });
  registerInterchangeReads(rt, uploads, "upload", (client) => client.admin.uploads);

  const deliveries = rt
    .command(program, "deliveries")
    .description("Outbound messages in partners' mailboxes (admin.exchangeDeliveries)");
  registerList<Delivery>(rt, deliveries, {
    description: "List deliveries, oldest first (--order desc: newest first)",
    empty: "No deliveries.",
    filters: [
      ...listFilters("ready, claimed, acknowledged or failed"),
      partnerFilter("deliveries"),
      { flags: "--upload <upload-id>", description: "only what this upload produced", query: "uploadId" },
      {
        flags: "--type <type>",
        description: "only this message type: CONTRL, APERAK or ORDRSP",
        query: "messageType",
      },
      {
        flags: "--overdue",
        description: "only the overdue ones (not acknowledged within the connection's collection deadline)",
        query: "overdue",
      },
    ],
    columns: [
      ["ID", (d) => d.id],
      ["TYPE", (d) => d.messageType],
      ["STATUS", (d) => (d.overdue ? `${d.status} (overdue)` : d.status)],
      ["ATTEMPTS", (d) => String(d.attempts)],
      ["PARTNER", (d) => d.partnerName],
      ["CONNECTION", (d) => d.connectionName],
      ["UPLOAD", (d) => d.uploadId],
    ],
    fetch: (client, query) => client.admin.deliveries.list(query),
  });
  registerGet<Delivery>(rt, deliveries, {
    description: "Show one delivery",
    argument: "delivery-id",
    fetch: (client, id) => client.admin.deliveries.get(id),
    render: renderDelivery,
  });
  registerInterchangeReads(rt, deliveries, "delivery", (client) => client.admin.deliveries);
  registerItemAction<Delivery>(rt, deliveries, {
    name: "requeue",
    description: "Put a failed delivery back into the mailbox (its attempts start again)",
    argument: "delivery-id",
    run: (client, id) => client.admin.deliveries.requeue(id),
    render: (d) => `requeued delivery ${d.id}: ${d.status}, due ${d.dueAt}`,
  });
  registerItemAction<Delivery>(rt, deliveries, {
    name: "resend",
    description: "Put a delivery the partner lost into its mailbox again, as a new item (any status)",
    argument: "delivery-id",
    run: (client, id) => client.admin.deliveries.resend(id),
    render: (d) =>
      `re-sent delivery ${orDash(d.resentFrom)} as ${d.id}: ${d.status}, ${d.messageType} ${d.messageReference}`,
  });

  const entities = rt.command(program, "entities").description("Workflow entities (admin.entities)");
  registerList<Entity>(rt, entities, {
    description: "List entities",
    empty: "No entities.",
    filters: [{ flags: "--kind <kind>", description: "only entities of this kind", query: "kind" }],
    columns: [
      ["ID", (e) => e.id],
      ["KIND", (e) => e.kind],
      ["STATE", (e) => e.state],
      ["VERSION", (e) => String(e.version)],
    ],
    fetch: (client, query) => client.admin.entities.list(query),
  });
  registerGet<Entity>(rt, entities, {
    description: "Show one entity",
    argument: "entity-id",
    fetch: (client, id) => client.admin.entities.get(id),
    render: renderEntity,
  });
  const requests = rt
    .command(program, "transition-requests")
    .description("Workflow transition requests with status and outcome (admin.transitionRequests)");
  registerList<TransitionRequestStatus>(rt, requests, {
    description: "List the tenant's transition requests, in creation order",
    empty: "No transition requests.",
    filters: [
      { flags: "--entity <entity-id>", description: "only the requests for this entity", query: "entityId" },
      {
        flags: "--status <status>",
        description: "only requests in this status: pending, processing, succeeded or failed",
        query: "status",
      },
    ],
    columns: [
      ["CREATED", (r) => r.createdAt],
      ["ID", (r) => r.requestId],
      ["ENTITY", (r) => r.entityId],
      ["TRANSITION", (r) => r.transition],
      ["STATUS", (r) => r.status],
      ["OUTCOME", (r) => (r.result ? `${r.result.fromState} -> ${r.result.toState}` : orDash(r.error?.code))],
    ],
    fetch: (client, query) => client.admin.transitionRequests.list(query),
  });
  jsonOption(rt.command(entities, "create"))
    .description("Create an entity in its kind's initial state")
    .requiredOption("--kind <kind>", "an entity kind with a workflow definition")
    .option("--attributes <json>", "a JSON object", parseJsonObject, {})
    .action(
      rt.action(async (options: { kind: string; attributes: Record<string, unknown>; json?: boolean }) => {
        const entity = await (
          await rt.client()
        ).admin.entities.create({
          kind: options.kind,
          attributes: options.attributes,
        });
        rt.emit(options.json, entity, () => `created entity ${entity.id}\n${renderEntity(entity)}`);
      }),
    );
}
