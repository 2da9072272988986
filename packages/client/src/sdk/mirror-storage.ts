/**
 * Where an EntitlementMirror keeps its position and projection between runs (issue 22 item 3):
 * a small interface, an in-memory implementation and a JSON file written atomically. Imports only
 * protocol/ and the SDK's own helpers (docs/architecture.md, "Layers").
 */
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { Entitlement } from "../protocol/index.js";
import { makeDirectory, readJsonFile, writeFileAtomic } from "./local-files.js";

/** Everything a mirror needs to resume without a snapshot: always one consistent position. */
export interface MirrorState {
  version: 1;
  /** The server the state came from (the service client's `baseUrl`). */
  server: string;
  /** The app of the binding, once known (the option `appId` or the first entitlement seen). */
  appId: string | null;
  /** The `asOfSequence` of the snapshot the projection was built from (rules/interface C rule 1). */
  asOfSequence: number;
  /** The last change applied: the feed is read again after it. */
  sequence: number;
  savedAt: string;
  /** The projection as of `sequence`, one entitlement per actor. */
  entitlements: Entitlement[];
}

/**
 * A mirror's persistence. `save` gets a complete state after every applied snapshot or page and
 * must replace the previous one as a whole (never half of it); `clear` forgets it (rule 2: a
 * projection discarded on a 410 must not come back after a restart).
 */
export interface MirrorStorage {
  /** The state saved last, or undefined when there is none. */
  load(): Promise<MirrorState | undefined>;
  save(state: MirrorState): Promise<void>;
  clear(): Promise<void>;
}

/** A stored state that cannot be used (unreadable, of another version, server or app). */
export class MirrorStateError extends Error {
  override readonly name = "MirrorStateError";
}

/** Keeps the state in this process only (a copy, so later changes of the mirror do not leak in). */
export function createMemoryStorage(initial?: MirrorState): MirrorStorage & {
  readonly state: MirrorState | undefined;
} {
  let state = initial === undefined ? undefined : structuredClone(initial);
  return {
    get state() {
      return state;
    },
    load: async () => (state === undefined ? undefined : structuredClone(state)),
    save: async (next) => {
      state = structuredClone(next);
    },
    clear: async () => {
      state = undefined;
    },
  };
}

/**
 * One JSON file (mode 0600), replaced atomically on every save (a temporary file beside it, flushed,
 * then renamed over it): a process killed at any moment leaves the previous state or the new one.
 * A file that is not a mirror state is a MirrorStateError naming the file (delete it to start again
 * from a snapshot). One mirror per file: two processes sharing a file overwrite each other.
 */
export function createJsonFileStorage(path: string): MirrorStorage & { readonly path: string } {
  return {
    path,
    async load() {
      const parsed = await readJsonFile(
        path,
        () =>
          new MirrorStateError(
            `the mirror state file ${path} is not valid JSON; delete it to start again from a snapshot`,
          ),
      );
      if (parsed === undefined) return undefined;
      const problem = stateProblem(parsed);
      if (problem !== undefined) {
        throw new MirrorStateError(
          `the mirror state file ${path} is not a mirror state (${problem}); delete it to start again from a snapshot`,
        );
      }
      return parsed as MirrorState;
    },
    async save(state) {
      await makeDirectory(dirname(path), 0o700);
      await writeFileAtomic(path, `${JSON.stringify(state)}\n`);
    },
    async clear() {
      await rm(path, { force: true });
    },
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isPosition = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** Why `value` is not a usable MirrorState (undefined when it is). */
export function stateProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return "not an object";
  if (value.version !== 1) return `version ${JSON.stringify(value.version)} is not 1`;
  if (typeof value.server !== "string") return "no server";
  if (value.appId !== null && typeof value.appId !== "string") return "appId is neither null nor text";
  if (!isPosition(value.sequence) || !isPosition(value.asOfSequence) || value.asOfSequence > value.sequence) {
    return "no valid sequence and asOfSequence";
  }
  if (!Array.isArray(value.entitlements)) return "no entitlements list";
  for (const item of value.entitlements) {
    if (!isRecord(item) || typeof item.actorId !== "string" || typeof item.status !== "string") {
      return "an entitlement without actorId or status";
    }
  }
  return undefined;
}
