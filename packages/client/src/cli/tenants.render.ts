import type { ProvisioningStatus, Tenant } from "../sdk/types.js";
import { renderColumns } from "./table.js";

/** Human-readable output of `hanse tenants`. */
export function renderOutcome(slug: string, status: ProvisioningStatus): string {
  const lines = [
    slug === status.tenantId
      ? `Provisioning of tenant ${status.tenantId}: ${status.state}.`
      : `Provisioning of ${slug} ${status.state} (tenant ${status.tenantId}).`,
  ];
  for (const step of status.steps) lines.push(`  ${step.state.padEnd(9)} ${step.name}`);
  if (status.error) lines.push(`  error: ${status.error.code}: ${status.error.message}`);
  return lines.join("\n");
}

export function renderTenant(tenant: Tenant): string {
  return [
    `ID:      ${tenant.id}`,
    `Name:    ${tenant.name}`,
    `Slug:    ${tenant.slug}`,
    `Type:    ${tenant.type}`,
    `Status:  ${tenant.status}`,
    `Created: ${tenant.createdAt}`,
  ].join("\n");
}

export function renderTable(items: readonly Tenant[]): string {
  if (items.length === 0) return "No tenants.";
  const rows = [
    ["ID", "SLUG", "TYPE", "STATUS", "CREATED", "NAME"],
    ...items.map((t) => [t.id, t.slug, t.type, t.status, t.createdAt, t.name]),
  ];
  return renderColumns(rows);
}
