import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (`apt-get install -y chromium`); CI installs it, a workstation may not have it. */
export const chromiumPath = process.env.HANSE_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Browser tests run when Chromium is there, and always in CI (`CI=true`), where a missing
 * Chromium is a failure, not a skip.
 */
export function browserTestsSkipped(): boolean {
  if (existsSync(chromiumPath) || process.env.CI === "true") return false;
  console.warn(`browser tests skipped: no Chromium at ${chromiumPath} (apt-get install -y chromium)`);
  return true;
}

const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * One Chromium per test file, headless. Playwright starts it with a fresh temporary profile
 * (`--user-data-dir`) of its own and removes it on close; each context is its own cookie jar.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: flags });
}
