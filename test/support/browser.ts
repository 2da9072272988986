import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";

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

/** Set CONSOLE_SCREENSHOTS=docs/console to refresh the screenshots of docs/console.md. */
const screenshots = process.env.CONSOLE_SCREENSHOTS;

/** Saves a screenshot of the whole page as `<name>.png` when CONSOLE_SCREENSHOTS names a folder. */
export async function shoot(page: Page, name: string): Promise<void> {
  if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

/** A browser under a loaded machine: wait long for what must happen, never judge by time. */
export const eventually = <T>(read: () => Promise<T>) =>
  expect.poll(read, { timeout: 60_000, interval: 100 });

/**
 * For `page.evaluate`: nothing when the page does not scroll sideways, else its elements that
 * reach past the screen's edge (a wide table scrolls inside its frame and does not count).
 */
export const widerThanScreen = `(() => {
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth <= width) return [];
  return [...document.querySelectorAll("body *")]
    .filter((e) => e.getBoundingClientRect().right > width + 1 && !e.closest(".table-wrap > table"))
    .map((e) => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right) + " px")
    .slice(0, 5);
})()`;
