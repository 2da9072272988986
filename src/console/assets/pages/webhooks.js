import { api } from "../api.js";
import { enumeration } from "../enumerations.js";
import { badge, formatTime, h, render, shortId } from "../dom.js";
import { can } from "../permissions.js";
import {
  attempt,
  checkboxes,
  field,
  fieldsList,
  formPanel,
  link,
  pagedTable,
  reloadableTable,
  select,
  showSecretOnce,
  statusSlot,
} from "../ui.js";

const subscriptionHref = (id) => `/admin/webhook-subscriptions/${encodeURIComponent(id)}`;
const enabledBadge = (s) => badge(s.enabled ? "enabled" : "disabled");
/** What a subscription receives: a binding's app's entitlement changes, or operator events. */
const receives = (s) => (s.eventTypes ? s.eventTypes.join(", ") : `entitlement changes of ${s.appId}`);

/**
 * Webhook subscriptions: a service binding's (its app's entitlement changes) and the tenant's
 * operator subscriptions to event types (a rejected upload, an overdue delivery, …); a new one's
 * secret is shown once.
 */
export function webhooksPage() {
  const slot = statusSlot();
  const issued = h("div", { "aria-live": "polite" });
  const { element: list, reload: show } = reloadableTable({
    caption: "Webhook subscriptions",
    load: (cursor) => api.get("/admin/webhook-subscriptions", { cursor }),
    columns: [
      { label: "URL", cell: (s) => link(`#/webhooks/${s.id}`, s.url) },
      { label: "Receives", cell: receives },
      { label: "Status", cell: enabledBadge },
      { label: "Failing since", cell: (s) => formatTime(s.failingSince) },
      { label: "Disabled because", cell: (s) => s.disabledReason ?? "—" },
      { label: "Created", cell: (s) => formatTime(s.createdAt) },
    ],
  });
  const page = h("div", {}, h("h1", {}, "Webhook subscriptions"), slot, issued);
  if (can("admin.webhookSubscriptions", "create")) {
    const bindings = select("Service binding", "bindingId", [], { required: true });
    void attempt(slot, async () => {
      const page = await api.get("/admin/service-bindings", { limit: 100 });
      bindings
        .querySelector("select")
        .append(...page.items.map((b) => h("option", { value: b.id }, `${b.appId} · ${b.audience}`)));
    });
    page.append(
      formPanel(
        "New webhook subscription",
        [bindings, field("URL (HTTPS)", { name: "url", type: "url", required: true, maxlength: 2048 })],
        "Subscribe",
        async (data, form) => {
          const subscription = await api.post("/admin/webhook-subscriptions", {
            bindingId: String(data.get("bindingId")),
            url: String(data.get("url")).trim(),
          });
          form.reset();
          showSecretOnce(
            issued,
            `Subscription to ${subscription.url} created.`,
            "Give the receiver this signing secret now",
            subscription.secret,
          );
          show();
        },
      ),
    );
  }
  if (can("admin.webhookSubscriptions", "create"))
    page.append(
      formPanel(
        "New operator subscription",
        [
          field("Receiver (HTTPS address)", { name: "url", type: "url", required: true, maxlength: 2048 }),
          checkboxes("Event types", "eventTypes", enumeration("operatorEventTypes")),
        ],
        "Add operator subscription",
        async (data, form) => {
          const subscription = await api.post("/admin/webhook-subscriptions", {
            url: String(data.get("url")).trim(),
            eventTypes: data.getAll("eventTypes").map(String),
          });
          form.reset();
          showSecretOnce(
            issued,
            `Subscription of ${subscription.url} to ${subscription.eventTypes.join(", ")} created.`,
            "Give the receiver this signing secret now",
            subscription.secret,
          );
          show();
        },
      ),
    );
  page.append(list);
  return page;
}

/** One subscription with its delivery attempts, newest first; enable or disable it. */
export function webhookPage(id) {
  const slot = statusSlot();
  const details = h("div", {}, h("p", {}, "Loading…"));
  const attempts = h("div");
  const toggle = (subscription) =>
    attempt(slot, async () => {
      await api.post(`${subscriptionHref(id)}/${subscription.enabled ? "disable" : "enable"}`);
      void show();
    });
  const remove = (subscription) =>
    attempt(slot, async () => {
      if (
        !confirm(
          `Delete the webhook subscription to ${subscription.url}? No delivery of it starts after this (its pending deliveries and retries are cancelled; one already on its way may finish), and it is no longer listed. This cannot be undone.`,
        )
      )
        return;
      await api.delete(subscriptionHref(id));
      location.hash = "#/webhooks";
    });
  const show = () =>
    attempt(slot, async () => {
      const subscription = await api.get(subscriptionHref(id));
      const action = subscription.enabled ? "disable" : "enable";
      render(
        details,
        fieldsList([
          ["URL", h("code", {}, subscription.url)],
          ["Receives", receives(subscription)],
          ["Binding", subscription.bindingId ? shortId(subscription.bindingId) : "none (operator events)"],
          ["Status", enabledBadge(subscription)],
          ["Failing since", formatTime(subscription.failingSince)],
          ["Disabled because", subscription.disabledReason],
          ["Created", formatTime(subscription.createdAt)],
        ]),
        h(
          "p",
          { class: "row" },
          can("admin.webhookSubscriptions", action)
            ? h(
                "button",
                { type: "button", class: "secondary", onclick: () => void toggle(subscription) },
                subscription.enabled ? "Disable" : "Enable",
              )
            : null,
          can("admin.webhookSubscriptions", "delete")
            ? h(
                "button",
                { type: "button", class: "secondary", onclick: () => void remove(subscription) },
                "Delete subscription",
              )
            : null,
        ),
      );
      render(
        attempts,
        pagedTable({
          caption: "Delivery attempts",
          load: (cursor) => api.get(`${subscriptionHref(id)}/attempts`, { cursor }),
          empty: "No delivery attempts yet.",
          columns: [
            { label: "When", cell: (a) => formatTime(a.attemptedAt) },
            { label: "Change", numeric: true, cell: (a) => a.sequence },
            { label: "Attempt", numeric: true, cell: (a) => a.attempt },
            { label: "Answer", cell: (a) => (a.status === null ? "none" : String(a.status)) },
            { label: "Latency", numeric: true, cell: (a) => `${a.latencyMs} ms` },
            { label: "Error", cell: (a) => a.errorClass ?? "—" },
            { label: "Delivery", cell: (a) => shortId(a.deliveryId) },
          ],
        }),
      );
    });
  void show();
  return h(
    "div",
    {},
    h("h1", {}, "Webhook subscription"),
    h("p", {}, link("#/webhooks", "← All subscriptions")),
    slot,
    details,
    h("h2", {}, "Delivery attempts"),
    attempts,
  );
}
