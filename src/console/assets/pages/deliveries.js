import { api } from "../api.js";
import { enumeration } from "../enumerations.js";
import { badge, formatBytes, formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, link, reloadableTable, statusSlot } from "../ui.js";
import { exchangeFilters, filterQuery, filterSelect, hashParams } from "./exchange-filters.js";

/**
 * Outbound messages in the partners' mailboxes, filtered by the API; a failed one can be requeued,
 * and any one re-sent as a new mailbox item (a partner lost the file).
 */
export function deliveriesPage() {
  const upload = hashParams().get("uploadId");
  const slot = statusSlot();
  const done = h("div", { "aria-live": "polite" });
  const mayRequeue = can("admin.exchangeDeliveries", "requeue");
  const mayResend = can("admin.exchangeDeliveries", "resend");
  const requeue = (delivery, cell) =>
    attempt(slot, async () => {
      const updated = await api.post(`/admin/exchange-deliveries/${encodeURIComponent(delivery.id)}/requeue`);
      render(cell, badge(updated.status));
    });
  const resend = (delivery) =>
    attempt(slot, async () => {
      if (!confirm(`Put ${delivery.messageType} ${delivery.messageReference} into the mailbox again?`))
        return;
      const copy = await api.post(`/admin/exchange-deliveries/${encodeURIComponent(delivery.id)}/resend`);
      render(
        done,
        h(
          "p",
          { class: "notice", role: "status" },
          `${copy.messageType} ${copy.messageReference} is in the mailbox again as delivery `,
          h("code", {}, copy.id),
          ".",
        ),
      );
      reload();
    });
  const action = (label, d, run) =>
    h(
      "button",
      { type: "button", class: "secondary", onclick: run },
      label,
      h("span", { class: "visually-hidden" }, ` ${d.messageType} ${d.messageReference}`),
    );
  const statusCell = (d) => {
    const cell = h("span", {}, badge(d.status));
    if (d.status === "failed" && mayRequeue)
      cell.append(
        " ",
        action("Requeue", d, () => void requeue(d, cell)),
      );
    return cell;
  };
  const { element: list, reload } = reloadableTable({
    caption: "Deliveries",
    load: (cursor) =>
      api.get("/admin/exchange-deliveries", { ...filterQuery(["uploadId", "messageType"]), cursor }),
    columns: [
      { label: "Created", cell: (d) => formatTime(d.createdAt) },
      {
        label: "Message",
        cell: (d) => link(`#/deliveries/${d.id}`, `${d.messageType} ${d.messageReference}`),
      },
      { label: "Status", cell: statusCell },
      { label: "Attempts", numeric: true, cell: (d) => d.attempts },
      {
        label: "Overdue since",
        cell: (d) => (d.overdue ? (d.overdueSince ? formatTime(d.overdueSince) : "overdue") : "—"),
      },
      {
        label: "Upload",
        cell: (d) => link(`#/uploads/${d.uploadId}`, d.inboundInterchangeId ?? d.uploadId.slice(0, 8)),
      },
      { label: "Partner", cell: (d) => d.partnerName },
      { label: "Connection", cell: (d) => d.connectionName },
      { label: "Size", numeric: true, cell: (d) => formatBytes(d.payloadSize) },
      { label: "Acknowledged", cell: (d) => formatTime(d.acknowledgedAt) },
      ...(mayResend
        ? [
            {
              label: "Resend",
              cell: (d) => [
                d.resentFrom ? h("span", { class: "muted" }, "a re-send ") : null,
                action("Resend", d, () => void resend(d)),
              ],
            },
          ]
        : []),
    ],
  });
  return h(
    "div",
    {},
    h("h1", {}, upload ? "Deliveries of one upload" : "Deliveries"),
    upload
      ? h("p", {}, link(`#/uploads/${upload}`, "← The upload"), " · ", link("#/deliveries", "All deliveries"))
      : null,
    exchangeFilters("deliveries", enumeration("deliveryStatuses"), [
      filterSelect("Message type", "messageType", enumeration("deliveryMessageTypes")),
    ]),
    slot,
    done,
    list,
  );
}
