import {
  expandHref,
  usableEntrypointKinds,
  type Entrypoint,
  type EntrypointAction,
} from "../protocol/index.js";
import { EntrypointMissingError } from "./errors.js";

/** Kinds this client understands (rules/interface B: unknown kinds are unusable). */
export const isUsableKind = (kind: string): boolean =>
  (usableEntrypointKinds as readonly string[]).includes(kind);

/** The published entry `id`, or EntrypointMissingError when absent or of an unknown kind. */
export function selectEntry(entrypoints: readonly Entrypoint[], id: string): Entrypoint {
  const entry = entrypoints.find((candidate) => candidate.id === id);
  if (!entry) throw new EntrypointMissingError(id, undefined, "entry");
  if (!isUsableKind(entry.kind)) throw new EntrypointMissingError(id, undefined, "unusable-kind", entry.kind);
  return entry;
}

/** The published action; a missing one is a definitive denial, never a reason to guess a path. */
export function selectAction(entry: Entrypoint, actionId: string): EntrypointAction {
  const action = entry.actions.find((candidate) => candidate.id === actionId);
  if (!action) throw new EntrypointMissingError(entry.id, actionId, "action");
  return action;
}

/** Whether the entry publishes this action (for optional features: check before use). */
export const hasAction = (entrypoints: readonly Entrypoint[], entryId: string, actionId: string): boolean => {
  const entry = entrypoints.find((candidate) => candidate.id === entryId);
  return entry !== undefined && isUsableKind(entry.kind) && entry.actions.some((a) => a.id === actionId);
};

/** Expands a published href template; only the server's template decides the path. */
export const expandAction = (href: string, values: Record<string, string>): string =>
  expandHref(href, values);

/** Whether a header name is among an action's required headers (case-insensitive). */
export const requiresHeader = (action: EntrypointAction, name: string): boolean =>
  (action.requiredHeaders ?? []).some((header) => header.toLowerCase() === name.toLowerCase());
