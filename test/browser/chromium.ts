/**
 * Debian's Chromium, driven by playwright-core through `executablePath` (no browser download):
 * headless, no sandbox (CI runs as root), no GPU, no QUIC, no first-run or background traffic,
 * in a fresh user-data-dir each launch. When no Chromium is installed the browser tests are
 * skipped, and `SKIP_REASON` says why and how to get one.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { ROOT } from "../e2e/processes.js";

/** TOOLSEARCH_CHROMIUM names the one to use; else Debian's (chromium), or Ubuntu's older name. */
const CANDIDATES = process.env.TOOLSEARCH_CHROMIUM ? [process.env.TOOLSEARCH_CHROMIUM] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

const CHROMIUM = CANDIDATES.find((candidate) => existsSync(candidate));
export const SKIP_REASON =
  CHROMIUM === undefined ? `no Chromium at ${CANDIDATES.join(" or ")}; install Debian's (apt-get install -y chromium) or set TOOLSEARCH_CHROMIUM` : undefined;

/** Where the tests leave their screenshots (git-ignored). */
export const SCREENSHOTS = path.join(ROOT, "test/browser/screenshots");

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  /** A new tab that records every console error and uncaught page error in `problems`. */
  page(): Promise<{ page: Page; problems: string[] }>;
  close(): Promise<void>;
}

/** `extraArgs`: e.g. a host-resolver rule that sends another site's name to this machine. */
export async function launch(extraArgs: string[] = []): Promise<Browser> {
  if (CHROMIUM === undefined) throw new Error(SKIP_REASON);
  const profile = mkdtempSync(path.join(tmpdir(), "toolsearch-chromium-"));
  mkdirSync(SCREENSHOTS, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...FLAGS, ...extraArgs],
    viewport: { width: 1200, height: 760 },
  });
  return {
    context,
    async page() {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console.error: ${message.text()}`);
      });
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
      return { page, problems };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
