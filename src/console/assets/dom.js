// A tiny element builder: text is always set as text (never parsed as HTML).

/** `h("a", { href: "#/x", class: "y", onclick: fn }, "text", child, [more])` */
export function h(tag, props, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the content of `target`. */
export function render(target, ...nodes) {
  target.replaceChildren();
  append(target, nodes);
}

export const formatTime = (value) => (value ? new Date(value).toLocaleString() : "—");

export function formatBytes(count) {
  if (count === null || count === undefined) return "—";
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

const tones = {
  processed: "good",
  acknowledged: "good",
  active: "good",
  succeeded: "good",
  enabled: "good",
  disabled: "bad",
  suspended: "warn",
  verified: "good",
  rejected: "bad",
  failed: "bad",
  revoked: "bad",
  processing: "warn",
  received: "warn",
  claimed: "warn",
  provisioning: "warn",
  pending: "warn",
  running: "warn",
};

export const badge = (status) => h("span", { class: `badge ${tones[status] ?? ""}` }, status ?? "—");

/** A short id for tables; the full id is its title and in the detail page. */
export const shortId = (id) => (id ? h("code", { title: id }, id.slice(0, 8)) : "—");

/** A `datetime-local` input's value as an RFC 3339 time (undefined when empty), and back. */
export const fromLocalInput = (local) => (local ? new Date(local).toISOString() : undefined);
export const toLocalInput = (iso) => {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
