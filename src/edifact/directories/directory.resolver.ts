import type { MessageIdentifier } from "../envelope/interchange.types.js";
import { BUILT_IN_DIRECTORIES, getDirectory } from "./directory.registry.js";
import type { Directory } from "./directory.types.js";
import { SERVICE_DIRECTORIES } from "./service-directories.js";

/** Picks each message's directory from the version and release its UNH S009 names. */
export interface DirectoryResolver {
  /** The directory of a message, or undefined when none of those at hand is its own. */
  forMessage(identifier: MessageIdentifier): Directory | undefined;
  /** The ids of the directories at hand (`D96A`, `CONTRL 4:1`, …), for findings. */
  readonly available: readonly string[];
}

const key = (version: string, release: string): string => `${version}:${release}`;

/**
 * Directories by what a message names: `ORDERS:D:25A:UN` → D.25A, `CONTRL:4:1:UN` → the
 * service message CONTRL 4:1. `imported` directories (what `importDirectory` made, loaded)
 * come first, so an official release replaces the built-in one of the same version and release.
 */
export function directoryResolver(imported: readonly Directory[] = []): DirectoryResolver {
  const byRelease = new Map<string, Directory>();
  for (const id of BUILT_IN_DIRECTORIES) {
    const dir = getDirectory(id);
    byRelease.set(key(dir.version, dir.release), dir);
  }
  for (const dir of imported) byRelease.set(key(dir.version, dir.release), dir);
  const service = new Map(SERVICE_DIRECTORIES.map((d) => [key(d.version, d.release), d]));
  const available = [
    ...new Set([...byRelease.values()].map((d) => d.id)),
    ...SERVICE_DIRECTORIES.map((d) => d.id),
  ];
  return {
    forMessage: (id) => (id.type === "CONTRL" ? service : byRelease).get(key(id.version, id.release)),
    available,
  };
}

/** True for a resolver, false for a single directory (both are accepted by validation). */
export function isDirectoryResolver(d: Directory | DirectoryResolver): d is DirectoryResolver {
  return "forMessage" in d;
}
