// Shared pieces of the console's pages.
import { downloadFile } from "./api.js";
import { h, render } from "./dom.js";

/** An error as the operator needs it: the problem's detail and the correlation id to quote. */
export function errorBox(error) {
  return h(
    "div",
    { class: "alert", role: "alert" },
    h("strong", {}, error.problem?.title ?? "Error"),
    ": ",
    error.problem?.detail ?? error.message,
    error.problem?.errors?.length
      ? h(
          "ul",
          {},
          error.problem.errors.map((e) => h("li", {}, `${e.pointer}: ${e.message}`)),
        )
      : null,
    error.correlationId
      ? h("div", { class: "muted" }, "Correlation id: ", h("code", {}, error.correlationId))
      : null,
  );
}

/** Runs `action`, showing its error in `slot` (a status region) instead of throwing. */
export async function attempt(slot, action) {
  render(slot);
  try {
    return await action();
  } catch (error) {
    render(slot, errorBox(error));
    return undefined;
  }
}

export const statusSlot = () => h("div", { "aria-live": "polite" });

/**
 * **Download the bytes**: saves the stored interchange at `path` (an audited content read) as the
 * file `name`; a refused read shows its problem in `slot`.
 */
export const downloadButton = (slot, path, name) =>
  h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: () => void attempt(slot, () => downloadFile(path, name)),
    },
    "Download the bytes",
  );

/**
 * A table of an API list, page by page with its cursors: `load(cursor)` answers `{ items, meta }`
 * (the list's filters are the server's, in `load`'s query).
 */
export function pagedTable({ caption, columns, load, empty = "Nothing yet." }) {
  const body = h("tbody");
  const slot = statusSlot();
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  const count = h("span", { class: "muted" });
  let cursor;
  let shown = 0;
  async function next() {
    more.disabled = true;
    const page = await attempt(slot, () => load(cursor));
    more.disabled = false;
    if (!page) return;
    for (const item of page.items) {
      body.append(tableRow(columns, item));
      shown += 1;
    }
    cursor = page.meta.nextCursor;
    more.hidden = !page.meta.hasMore;
    count.textContent = shown === 0 ? empty : `${shown} shown${page.meta.hasMore ? ", more available" : ""}`;
  }
  const element = h(
    "section",
    {},
    tableFrame(caption, columns, body),
    h("div", { class: "row" }, count, more),
    slot,
  );
  more.addEventListener("click", () => void next());
  void next();
  return element;
}

/** A `pagedTable` that `reload()` draws anew from its first page (after a change). */
export function reloadableTable(options) {
  const element = h("div");
  const reload = () => render(element, pagedTable(options));
  reload();
  return { element, reload };
}

let controls = 0;

/** A label and its control side by side in the markup, so the control's name is the label alone. */
function labelled(label, control) {
  controls += 1;
  control.id = `control-${controls}`;
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
}

/** A labelled input (or `tag`). */
export const field = (label, props) => labelled(label, h(props.tag ?? "input", { ...props, tag: null }));

export const select = (label, name, options, props = {}) =>
  labelled(
    label,
    h(
      "select",
      { name, ...props },
      options.map((o) =>
        typeof o === "string" ? h("option", { value: o }, o) : h("option", { value: o.value }, o.label),
      ),
    ),
  );

/** A form panel whose submit runs `submit(formData, form)`; errors appear inside it and at their fields. */
export function formPanel(legend, controls, submitLabel, submit) {
  const slot = statusSlot();
  const button = h("button", { type: "submit" }, submitLabel);
  const form = h(
    "form",
    { class: "panel" },
    h("fieldset", {}, h("legend", {}, legend), controls, button),
    slot,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    button.disabled = true;
    void attempt(slot, () => withFieldErrors(form, () => submit(new FormData(form), form))).finally(() => {
      button.disabled = false;
    });
  });
  return form;
}

/**
 * Runs `action`; when the API refuses it with errors at pointers (`/password`), each message is
 * shown under the form's control of that name (`aria-invalid`, described by the message).
 */
export async function withFieldErrors(form, action) {
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  for (const marked of form.querySelectorAll("[aria-invalid]")) {
    marked.removeAttribute("aria-invalid");
    marked.removeAttribute("aria-describedby");
  }
  try {
    return await action();
  } catch (error) {
    for (const { pointer, message } of error.problem?.errors ?? []) {
      // The deepest segment of the pointer that names a control: /autoCreate/emailDomains/0 → emailDomains.
      const control = String(pointer ?? "")
        .split("/")
        .filter(Boolean)
        .reverse()
        .map((name) => form.querySelector(`[name="${CSS.escape(name)}"]`))
        .find(Boolean);
      if (!control) continue;
      controls += 1;
      const note = h("p", { class: "field-error", id: `field-error-${controls}` }, message);
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", note.id);
      control.after(note);
    }
    throw error;
  }
}

/** A definition list of an object's fields (nested values as JSON). */
export function fieldsList(entries) {
  return h(
    "dl",
    { class: "fields" },
    entries.map(([label, value]) => [
      h("dt", {}, label),
      h("dd", {}, value === null || value === undefined ? "—" : value),
    ]),
  );
}

export const link = (href, text) => h("a", { href }, text);

/** A search form: `controls` and an Apply button that calls `apply()`. */
export function filterForm(controls, apply) {
  const form = h(
    "form",
    { class: "panel", role: "search" },
    h("fieldset", {}, h("legend", {}, "Filter"), controls, h("button", { type: "submit" }, "Apply")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    apply();
  });
  return form;
}

/**
 * A secret the API shows only once (an API key's token, a service or webhook secret), in the page
 * until dismissed: the console never stores it anywhere.
 */
export function showSecretOnce(target, title, instruction, secret) {
  const dismiss = h("button", { type: "button", onclick: () => render(target) }, "I have stored it — hide");
  render(
    target,
    h(
      "div",
      { class: "notice", role: "status" },
      h("strong", {}, title),
      ` ${instruction}; it is shown only once:`,
      h("code", { class: "secret", "data-secret": "" }, secret),
      dismiss,
    ),
  );
  dismiss.focus();
}

/**
 * A one-time link (an invitation or a password reset: its token in the fragment, so it never
 * reaches a server's log) in the page until dismissed, with a button that copies it.
 */
export function showLinkOnce(target, title, instruction, url) {
  const copied = h("span", { class: "muted", "aria-live": "polite" });
  const copy = h(
    "button",
    {
      type: "button",
      onclick: () => {
        void copyText(url, code).then((done) => {
          copied.textContent = done ? "Copied." : "Select the link and copy it.";
        });
      },
    },
    "Copy link",
  );
  const dismiss = h("button", { type: "button", class: "secondary", onclick: () => render(target) }, "Hide");
  const code = h("code", { class: "secret", "data-secret": "" }, url);
  render(
    target,
    h(
      "div",
      { class: "notice", role: "status" },
      h("strong", {}, title),
      ` ${instruction}; it is shown only once:`,
      code,
      h("div", { class: "row" }, copy, dismiss, copied),
    ),
  );
  copy.focus();
}

/** Copies `text` to the clipboard; where the browser refuses, selects `element`'s text instead. */
async function copyText(text, element) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(element);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    return false;
  }
}

/** A table of records already loaded (no paging): `columns` as for `pagedTable`. */
export function staticTable(caption, columns, items, empty = "Nothing yet.") {
  if (items.length === 0) return h("p", { class: "muted" }, empty);
  return tableFrame(
    caption,
    columns,
    h(
      "tbody",
      {},
      items.map((item) => tableRow(columns, item)),
    ),
  );
}

const tableRow = (columns, item) =>
  h(
    "tr",
    {},
    columns.map((c) => h("td", { class: c.numeric ? "num" : null }, c.cell(item))),
  );

/** A captioned table with its column heads around `body`, scrolling sideways inside its frame. */
function tableFrame(caption, columns, body) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map((c) => h("th", { scope: "col" }, c.label)),
        ),
      ),
      body,
    ),
  );
}

/** A list of capabilities (or scopes) as the form's checkboxes, all checked unless `checked` says. */
export function checkboxes(legend, name, values, checked = () => true) {
  return h(
    "fieldset",
    { class: "checks" },
    h("legend", {}, legend),
    values.length === 0 ? h("span", { class: "muted" }, "none") : null,
    values.map((value) =>
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "checkbox",
          name,
          value,
          checked: checked(value),
          defaultChecked: checked(value),
        }),
        value,
      ),
    ),
  );
}
