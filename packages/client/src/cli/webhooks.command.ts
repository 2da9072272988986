import type { Command } from "commander";
import type { Page } from "../sdk/types.js";
import type {
  OperatorEventType,
  WebhookAttempt,
  WebhookSubscription,
  WebhooksAdminApi,
} from "../sdk/webhooks-admin.js";
import { parseWhole } from "./options.js";
import { CliError, type Runtime } from "./runtime.js";
import { renderColumns } from "./table.js";
import { registerTestReceiverCommand } from "./test-receiver.command.js";

function stateOf(s: WebhookSubscription): string {
  if (!s.enabled) return "disabled";
  return s.failingSince === null ? "enabled" : "failing";
}

function renderSubscription(s: WebhookSubscription): string {
  const state = s.enabled
    ? s.failingSince === null
      ? "enabled"
      : `enabled, failing since ${s.failingSince}`
    : `disabled: ${s.disabledReason ?? "-"}`;
  const target =
    s.bindingId === null
      ? [`Events:   ${(s.eventTypes ?? []).join(", ")} (operator subscription)`]
      : [`Binding:  ${s.bindingId}`, `App:      ${s.appId ?? "-"}`];
  return [
    `ID:       ${s.id}`,
    ...target,
    `URL:      ${s.url}`,
    `State:    ${state}`,
    `Created:  ${s.createdAt}`,
  ].join("\n");
}

function renderAttempts(page: Page<WebhookAttempt>): string {
  if (page.items.length === 0) return "No delivery attempts.";
  return renderColumns([
    ["TIME", "SEQ", "ATTEMPT", "STATUS", "LATENCY", "ERROR", "WEBHOOK-ID"],
    ...page.items.map((a) => [
      a.attemptedAt,
      a.sequence === null ? "-" : String(a.sequence),
      String(a.attempt),
      a.status === null ? "-" : String(a.status),
      `${a.latencyMs} ms`,
      a.errorClass ?? "-",
      a.deliveryId,
    ]),
  ]);
}

/** Every subscription of one binding: the list has no filter, so all pages are read and filtered here. */
async function subscriptionsOf(api: WebhooksAdminApi, bindingId: string): Promise<WebhookSubscription[]> {
  const found: WebhookSubscription[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.listSubscriptions({ limit: 100, cursor });
    found.push(...page.items.filter((s) => s.bindingId?.toLowerCase() === bindingId.toLowerCase()));
    cursor = page.meta.hasMore && page.meta.nextCursor !== null ? page.meta.nextCursor : undefined;
  } while (cursor !== undefined);
  return found;
}

const secretShownOnce = [
  "",
  "This secret is shown only now and cannot be read again: store it where the receiver reads it.",
  "Before going live, check the receiver with it (the secret piped on stdin):",
  "  hanse webhooks test-receiver <url> --secret-stdin",
].join("\n");

/**
 * `hanse webhooks …`: webhook subscriptions of service bindings through the published
 * `admin.webhookSubscriptions` entry (session or access token), and `test-receiver`, which checks
 * an integrator's endpoint from this machine without a Hanse server. Exit codes: 0 ok, 1 API or
 * usage error, 2 a test-receiver case did not pass.
 */
export function registerWebhooksCommands(program: Command, rt: Runtime): void {
  const webhooks = rt
    .command(program, "webhooks")
    .description("Webhook subscriptions of service bindings, and a check of your receiver");
  const api = async () => (await rt.client()).webhooks;
  const json = (command: Command) => command.option("--json", "machine-readable output");
  const paged = (command: Command) =>
    json(command)
      .option("--limit <n>", "page size, 1–100", parseWhole("--limit", 1, 100))
      .option("--cursor <cursor>", "continue after a previous page");

  paged(rt.command(webhooks, "list"))
    .description("List the tenant's webhook subscriptions")
    .option("--binding <id>", "only this service binding's (reads every page)")
    .action(
      rt.action(async (options: { binding?: string; limit?: number; cursor?: string; json?: boolean }) => {
        if (options.binding !== undefined && (options.limit !== undefined || options.cursor !== undefined)) {
          throw new CliError("--binding reads every page: give it without --limit and --cursor");
        }
        const page: Page<WebhookSubscription> =
          options.binding === undefined
            ? await (await api()).listSubscriptions({ limit: options.limit, cursor: options.cursor })
            : {
                items: await subscriptionsOf(await api(), options.binding),
                meta: { hasMore: false, nextCursor: null },
              };
        if (options.json) {
          rt.printJson(page);
          return;
        }
        rt.print(
          page.items.length === 0
            ? "No webhook subscriptions."
            : renderColumns([
                ["ID", "BINDING", "APP", "STATE", "URL"],
                ...page.items.map((s) => [
                  s.id,
                  s.bindingId ?? "-",
                  s.appId ?? (s.eventTypes ?? []).join(","),
                  stateOf(s),
                  s.url,
                ]),
              ]),
        );
        if (page.meta.hasMore && page.meta.nextCursor !== null)
          rt.print(`More: hanse webhooks list --cursor '${page.meta.nextCursor}'`);
      }),
    );

  json(rt.command(webhooks, "create"))
    .description(
      "Subscribe an HTTPS URL to a binding's entitlement changes (--binding) or to operator events " +
        "(--events; the secret is printed once)",
    )
    .option("--binding <id>", "service binding id")
    .option(
      "--events <types>",
      "operator event types, comma-separated: exchange.upload.rejected, exchange.upload.failed, " +
        "exchange.delivery.overdue, exchange.delivery.failed, workflows.request.failed",
    )
    .requiredOption("--url <url>", "https URL of your receiver (public addresses only)")
    .action(
      rt.action(async (options: { binding?: string; events?: string; url: string; json?: boolean }) => {
        if ((options.binding === undefined) === (options.events === undefined)) {
          throw new CliError("give either --binding or --events");
        }
        const client = await api();
        const created =
          options.binding === undefined
            ? await client.createSubscription({
                url: options.url,
                eventTypes: (options.events ?? "")
                  .split(",")
                  .map((type) => type.trim())
                  .filter(Boolean) as OperatorEventType[],
              })
            : await client.createSubscription({ bindingId: options.binding, url: options.url });
        if (options.json) {
          rt.printJson(created);
          return;
        }
        rt.print(
          [
            `created webhook subscription ${created.id}`,
            renderSubscription(created),
            `Secret:   ${created.secret}`,
            secretShownOnce,
          ].join("\n"),
        );
      }),
    );

  json(rt.command(webhooks, "show"))
    .description("Show one subscription (state, and why it was disabled)")
    .argument("<id>", "subscription id")
    .action(
      rt.action(async (id: string, options: { json?: boolean }) => {
        const subscription = await (await api()).getSubscription(id);
        if (options.json) rt.printJson(subscription);
        else rt.print(renderSubscription(subscription));
      }),
    );

  paged(rt.command(webhooks, "attempts"))
    .description("A subscription's delivery attempts, newest first (never a body or secret)")
    .argument("<id>", "subscription id")
    .action(
      rt.action(async (id: string, options: { limit?: number; cursor?: string; json?: boolean }) => {
        const page = await (await api()).listAttempts(id, { limit: options.limit, cursor: options.cursor });
        if (options.json) {
          rt.printJson(page);
          return;
        }
        rt.print(renderAttempts(page));
        if (page.meta.hasMore && page.meta.nextCursor !== null)
          rt.print(`More: hanse webhooks attempts ${id} --cursor '${page.meta.nextCursor}'`);
      }),
    );

  json(rt.command(webhooks, "recover"))
    .description("Re-send every change from a sequence on that the feed still holds")
    .argument("<id>", "subscription id")
    .requiredOption(
      "--from-sequence <n>",
      "the first sequence to send again",
      parseWhole("--from-sequence", 1, Number.MAX_SAFE_INTEGER),
    )
    .action(
      rt.action(async (id: string, options: { fromSequence: number; json?: boolean }) => {
        const recovered = await (await api()).recover(id, options.fromSequence);
        if (options.json) rt.printJson(recovered);
        else
          rt.print(
            `queued ${recovered.enqueued} ${recovered.enqueued === 1 ? "delivery" : "deliveries"} ` +
              `for subscription ${recovered.subscriptionId}: ` +
              `the changes from sequence ${recovered.fromSequence} on that the feed still holds`,
          );
      }),
    );

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    json(rt.command(webhooks, action))
      .description(
        enabled
          ? "Enable a subscription again (send what it missed with `recover`)"
          : "Disable a subscription; its pending deliveries are dropped",
      )
      .argument("<id>", "subscription id")
      .action(
        rt.action(async (id: string, options: { json?: boolean }) => {
          const client = await api();
          const subscription = enabled ? await client.enable(id) : await client.disable(id);
          if (options.json) rt.printJson(subscription);
          else
            rt.print(
              `${enabled ? "enabled" : "disabled"} webhook subscription ${subscription.id}` +
                (enabled ? "" : "; its pending deliveries were dropped"),
            );
        }),
      );
  }

  rt.command(webhooks, "delete")
    .description("Delete a subscription: no delivery of it starts after this (pending ones are dropped)")
    .argument("<id>", "subscription id")
    .action(
      rt.action(async (id: string) => {
        await (await api()).deleteSubscription(id);
        rt.print(`deleted webhook subscription ${id}; no delivery of it starts from now on`);
      }),
    );

  json(rt.command(webhooks, "rotate-secret"))
    .description("Issue a new signing secret (printed once); the old one signs beside it for the overlap")
    .argument("<id>", "subscription id")
    .action(
      rt.action(async (id: string, options: { json?: boolean }) => {
        const rotated = await (await api()).rotateSecret(id);
        if (options.json) {
          rt.printJson(rotated);
          return;
        }
        rt.print(
          [
            `rotated the secret of webhook subscription ${rotated.subscriptionId}`,
            `Secret:   ${rotated.secret}`,
            "",
            `Until ${rotated.previousSecretValidUntil} the old secret signs beside the new one: each delivery`,
            "carries both signatures (webhook-signature: v1,<new> v1,<old>). Give the receiver the new secret",
            "before then. This secret is shown only now and cannot be read again.",
          ].join("\n"),
        );
      }),
    );

  registerTestReceiverCommand(webhooks, rt);
}
