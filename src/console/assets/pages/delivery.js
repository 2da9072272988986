import { api } from "../api.js";
import { badge, formatBytes, formatTime, h, render } from "../dom.js";
import { can } from "../permissions.js";
import { attempt, downloadButton, fieldsList, link, statusSlot } from "../ui.js";

/**
 * One delivery (`#/deliveries/<id>`): its status, claims, whether it is overdue and since when, the
 * inbound interchange it answers with a link to that upload, a download of its stored bytes (the
 * audited content read) and a resend.
 */
export function deliveryPage(id) {
  const href = `/admin/exchange-deliveries/${encodeURIComponent(id)}`;
  const body = h("div", {}, h("p", {}, "Loading…"));
  const slot = statusSlot();
  const done = h("div", { "aria-live": "polite" });
  const show = (d) => {
    const actions = h("p", { class: "actions" });
    if (can("admin.exchangeDeliveries", "content"))
      actions.append(
        downloadButton(
          slot,
          `${href}/content`,
          `${d.messageType}-${d.interchangeId}-${d.messageReference}.edi`,
        ),
        " ",
      );
    if (can("admin.exchangeDeliveries", "resend"))
      actions.append(
        h(
          "button",
          {
            type: "button",
            onclick: () =>
              void attempt(slot, async () => {
                if (!confirm(`Put ${d.messageType} ${d.messageReference} into the mailbox again?`)) return;
                const copy = await api.post(`${href}/resend`);
                render(
                  done,
                  h(
                    "p",
                    { class: "notice", role: "status" },
                    `${copy.messageType} ${copy.messageReference} is in the mailbox again as `,
                    link(`#/deliveries/${copy.id}`, `delivery ${copy.id.slice(0, 8)}`),
                    ".",
                  ),
                );
              }),
          },
          "Resend",
        ),
      );
    render(
      body,
      fieldsList([
        ["Message", `${d.messageType} ${d.messageReference}`],
        ["Status", badge(d.status)],
        [
          "Overdue",
          d.overdue ? ["yes", d.overdueSince ? `, since ${formatTime(d.overdueSince)}` : ""] : "no",
        ],
        ["Attempts", String(d.attempts)],
        ["Interchange", d.interchangeId],
        [
          "Answers",
          [
            d.inboundInterchangeId ? `interchange ${d.inboundInterchangeId}, ` : "",
            link(`#/uploads/${d.uploadId}`, "the upload"),
          ],
        ],
        ["Partner", d.partnerName],
        ["Connection", link(`#/connections/${d.connectionId}`, d.connectionName)],
        ["Size", formatBytes(d.payloadSize)],
        ["SHA-256", h("code", {}, d.payloadSha256)],
        ["Created", formatTime(d.createdAt)],
        ["Due", formatTime(d.dueAt)],
        ["Acknowledged", formatTime(d.acknowledgedAt)],
        ["Re-sends", d.resentFrom ? link(`#/deliveries/${d.resentFrom}`, d.resentFrom) : null],
        ["Delivery id", h("code", {}, d.id)],
      ]),
      actions,
    );
  };
  void attempt(slot, async () => show(await api.get(href))).then(() => {
    if (body.textContent === "Loading…") render(body);
  });
  return h(
    "div",
    {},
    h("h1", {}, "Delivery"),
    h("p", {}, link("#/deliveries", "← All deliveries")),
    slot,
    done,
    body,
  );
}
