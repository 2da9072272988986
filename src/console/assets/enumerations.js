// The value lists of the console's selects (roles, statuses, message types, scopes), from the
// API's own description (`/console/enumerations.json`, src/console/enumerations.ts): loaded once
// after sign-in, read synchronously by the pages.

let lists = {};

export async function loadEnumerations() {
  const response = await fetch("/console/enumerations.json", { credentials: "same-origin" });
  if (!response.ok) throw new Error(`the console's value lists did not load (HTTP ${response.status})`);
  lists = await response.json();
}

/** One list by name (`userRoles`, `entitlementStatuses`, …); empty before loadEnumerations. */
export const enumeration = (name) => lists[name] ?? [];
