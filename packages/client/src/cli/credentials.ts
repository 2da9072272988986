import { rm } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { makeDirectory, readJsonFile, writeFileAtomic } from "../sdk/local-files.js";

/** What `hanse login` keeps between runs. The token never appears in output. */
export interface StoredCredentials {
  url: string;
  token: string;
  tenant?: string;
  expiresAt?: string;
}

/** `HANSE_CLI_CONFIG`, else `$XDG_CONFIG_HOME/hanse/credentials.json`, else `~/.config/hanse/credentials.json`. */
export function credentialsPath(env: Record<string, string | undefined>): string {
  if (env.HANSE_CLI_CONFIG) return env.HANSE_CLI_CONFIG;
  const configHome = env.XDG_CONFIG_HOME ?? join(env.HOME ?? homedir(), ".config");
  return join(configHome, "hanse", "credentials.json");
}

export async function readCredentials(path: string): Promise<StoredCredentials | undefined> {
  const value = (await readJsonFile(
    path,
    () => new Error(`the credentials file ${path} is not valid JSON; run \`hanse login\` again`),
  )) as Partial<StoredCredentials> | null | undefined;
  if (value === undefined) return undefined;
  if (typeof value?.url !== "string" || typeof value.token !== "string") {
    throw new Error(`the credentials file ${path} lacks url or token; run \`hanse login\` again`);
  }
  return value as StoredCredentials;
}

/** Writes atomically with mode 0600 (directory 0700), so the token is never world-readable. */
export async function writeCredentials(path: string, credentials: StoredCredentials): Promise<void> {
  await makeDirectory(dirname(path), 0o700);
  await writeFileAtomic(path, `${JSON.stringify(credentials, null, 2)}\n`, 0o600);
}

export async function removeCredentials(path: string): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
