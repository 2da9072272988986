import { api } from "../api.js";
import { badge, formatBytes, formatTime, h, render, shortId } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, link, pagedTable, statusSlot } from "../ui.js";

/** Outbound messages in the partners' mailboxes, with a requeue action for a failed one. */
export function deliveriesPage() {
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "");
  const upload = params.get("upload");
  const slot = statusSlot();
  const mayRequeue = can("admin.exchangeDeliveries", "requeue");
  const requeue = (delivery, cell) =>
    attempt(slot, async () => {
      const updated = await api.post(`/admin/exchange-deliveries/${encodeURIComponent(delivery.id)}/requeue`);
      render(cell, badge(updated.status));
    });
  const statusCell = (d) => {
    const cell = h("span", {}, badge(d.status));
    if (d.status === "failed" && mayRequeue) {
      cell.append(
        " ",
        h(
          "button",
          { type: "button", class: "secondary", onclick: () => void requeue(d, cell) },
          "Requeue",
          h("span", { class: "visually-hidden" }, ` ${d.messageType} ${d.messageReference}`),
        ),
      );
    }
    return cell;
  };
  return h(
    "div",
    {},
    h("h1", {}, upload ? "Deliveries of one upload" : "Deliveries"),
    upload
      ? h("p", {}, link(`#/uploads/${upload}`, "← The upload"), " · ", link("#/deliveries", "All deliveries"))
      : null,
    slot,
    pagedTable({
      caption: "Deliveries",
      load: (cursor) => api.get("/admin/exchange-deliveries", { cursor }),
      keep: (d) => !upload || d.uploadId === upload,
      columns: [
        { label: "Created", cell: (d) => formatTime(d.createdAt) },
        { label: "Message", cell: (d) => `${d.messageType} ${d.messageReference}` },
        { label: "Status", cell: statusCell },
        { label: "Attempts", numeric: true, cell: (d) => d.attempts },
        {
          label: "Upload",
          cell: (d) => link(`#/uploads/${d.uploadId}`, d.inboundInterchangeId ?? d.uploadId.slice(0, 8)),
        },
        { label: "Connection", cell: (d) => shortId(d.connectionId) },
        { label: "Size", numeric: true, cell: (d) => formatBytes(d.payloadSize) },
        { label: "Acknowledged", cell: (d) => formatTime(d.acknowledgedAt) },
      ],
    }),
  );
}
