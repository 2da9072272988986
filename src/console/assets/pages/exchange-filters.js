import { fromLocalInput as toIso, toLocalInput as toLocal } from "../dom.js";
import { field, filterForm, select } from "../ui.js";

/** The page's filters as its hash carries them (`#/uploads?status=rejected&…`). */
export const hashParams = () => new URLSearchParams(location.hash.split("?")[1] ?? "");

/**
 * The filters the API applies to the lists of uploads and deliveries: connection, status, created
 * from (inclusive) and to (exclusive), plus `extra` controls (name → hash parameter). Applying them
 * puts them into the page's hash, so a filtered list can be linked to and reloaded.
 */
export function exchangeFilters(section, statuses, extra = []) {
  const params = hashParams();
  const form = filterForm(
    [
      field("Connection id", {
        name: "connectionId",
        value: params.get("connectionId") ?? "",
        maxlength: 36,
      }),
      select("Status", "status", [{ value: "", label: "any" }, ...statuses]),
      field("Created from", { name: "from", type: "datetime-local", value: toLocal(params.get("from")) }),
      field("Created before", { name: "to", type: "datetime-local", value: toLocal(params.get("to")) }),
      ...extra.map((e) => e.control),
    ],
    () => {
      const query = queryOf(form);
      for (const keep of ["uploadId"]) if (params.get(keep)) query[keep] = params.get(keep);
      applyToHash(section, query);
    },
  );
  form.elements.status.value = params.get("status") ?? "";
  for (const e of extra) form.elements[e.name].value = params.get(e.name) ?? "";
  return form;
}

/** Puts a section's filters (name → value; empty ones left out) into the hash, showing the list anew. */
export function applyToHash(section, query) {
  const next = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) next.set(name, value);
  const hash = `#/${section}${next.size ? `?${next}` : ""}`;
  if (location.hash === hash) window.dispatchEvent(new window.HashChangeEvent("hashchange"));
  else location.hash = hash;
}

/** The list query of the filters in the page's hash (what the API is asked for). */
export function filterQuery(names = []) {
  const params = hashParams();
  const query = {};
  for (const name of ["connectionId", "status", "from", "to", ...names]) {
    const value = params.get(name);
    if (value) query[name] = value;
  }
  return query;
}

function queryOf(form) {
  const query = {};
  for (const element of form.elements) {
    if (!element.name || element.tagName === "BUTTON") continue;
    const value = element.value.trim();
    query[element.name] = element.type === "datetime-local" ? toIso(value) : value;
  }
  return query;
}

/** An extra select of the filter form: `{ name, control }`. */
export const filterSelect = (label, name, values) => ({
  name,
  control: select(label, name, [{ value: "", label: "any" }, ...values]),
});
