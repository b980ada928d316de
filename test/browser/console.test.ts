/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against real
 * faces: the gateway in front of the scripted provider and the MCP face, with the memory MCP
 * server and a plugin. Every page loads with no console error (the strict CSP included); the
 * search playground shows why a hit is where it is; telemetry moves after a run; a page of
 * another site, or a rebound host name, gets nothing; with gateway.auth the console asks for the
 * owner token and shows nothing without it. A screenshot of each page goes to
 * test/browser/screenshots (git-ignored).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, origin, OWNER, startFaces, TOKENS } from "../admin/fixture.js";
import { launch, SCREENSHOTS, SKIP_REASON, type Browser } from "./chromium.js";

if (SKIP_REASON !== undefined) console.warn(`test/browser: the browser tests are skipped: ${SKIP_REASON}`);
// Each test is skipped with the reason (the reporter shows it), never passed without a browser.
beforeEach((context) => context.skip(SKIP_REASON !== undefined, SKIP_REASON));

const PAGES = ["catalog", "search", "telemetry", "tenants", "servers", "learning"] as const;
/** What each page shows once its data is in. */
const READY: Record<(typeof PAGES)[number], string> = {
  catalog: "table.sources tbody tr",
  search: "form.search",
  telemetry: ".cards .card",
  tenants: "table.tenants",
  servers: "table.servers tbody tr",
  learning: "h2",
};

describe("the console in Chromium", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  let browser: Browser;
  /** The gateway's own line per request: what it answered, whatever the browser then did with it. */
  const answered: string[] = [];
  beforeAll(async () => {
    if (SKIP_REASON !== undefined) return;
    faces = await startFaces({}, (line) => answered.push(line));
    // A page of another site: its name resolves to this machine, as a rebinding attacker's would.
    browser = await launch(["--host-resolver-rules=MAP attacker.test 127.0.0.1"]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await faces?.close();
  });

  it("loads every page on both faces with no console error, and screenshots each", { timeout: 90_000 }, async () => {
    await call(`${faces.gateway.url}/v1/runs`, { body: { sessionId: "browser-1", input: "What is the weather in Paris?" } });
    const { page, problems } = await browser.page();
    for (const name of PAGES) {
      await page.goto(`${faces.gateway.url}/console/#/${name}`);
      await page.waitForSelector(READY[name]);
      await page.screenshot({ path: path.join(SCREENSHOTS, `console-${name}.png`), fullPage: true });
    }
    await page.goto(`${origin(faces.mcpUrl)}/console/#/catalog`);
    await page.waitForSelector(READY.catalog);
    expect(await page.locator(".server").textContent()).toContain("mcp · v");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows, in the search playground, why the first hit is first: each word's term, score and split over the fields", { timeout: 60_000 }, async () => {
    const { page, problems } = await browser.page();
    await page.goto(`${faces.gateway.url}/console/#/search`);
    await page.fill("input[name=request]", "list everything in the knowledge graph");
    await page.selectOption("select[name=mode]", "tools");
    await page.click("button[type=submit]");
    const first = page.locator("li.hit").first();
    await first.locator("summary").click();
    // A read request: the tool that reads the graph, not one that deletes from it (read safety, expansions kept out of parameter text).
    await expect.poll(() => first.locator(".id").textContent()).toBe("mcp:memory:read_graph");
    const table = first.locator("table.bm25f").first();
    const rows = await table.locator("tbody tr").allTextContents();
    expect(rows.some((row) => row.startsWith("graphgraph"))).toBe(true);
    expect(await table.locator(".field").count()).toBeGreaterThan(0);
    expect(await table.locator(".formula").textContent()).toMatch(/^sum \d\.\d{3} × coordination \d\.\d{3} × name precision \d\.\d{3} = \d\.\d{3}$/);
    expect(await page.locator(".results .lead").textContent()).toMatch(/in mode tools .* against .* in direct mode \(\d+\.\d% not sent\)/);
    await page.screenshot({ path: path.join(SCREENSHOTS, "console-search-explain.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows telemetry move after a run", { timeout: 60_000 }, async () => {
    const { page, problems } = await browser.page();
    await page.goto(`${faces.gateway.url}/console/#/telemetry`);
    const runs = page.locator(".cards .card .big").first();
    await runs.waitFor();
    const before = Number(await runs.textContent());
    const turn = await call(`${faces.gateway.url}/v1/runs`, { body: { sessionId: "browser-2", input: "What is the weather in Paris?" } });
    expect(turn.status).toBe(200);
    await page.reload();
    await expect.poll(async () => Number(await runs.textContent()), { timeout: 10_000 }).toBe(before + 1);
    expect(await page.locator("figure.chart canvas").count()).toBe(3);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("gives a page of another site nothing: its fetch of the admin API is refused, and a rebound host name gets 403", { timeout: 60_000 }, async () => {
    const site = await attackerSite();
    try {
      const { page } = await browser.page();
      await page.goto(`http://attacker.test:${site.port}/`);
      const failed = page.waitForEvent("requestfailed", (request) => request.url().includes("/admin/v1/catalog"));
      const outcome = await page.evaluate(async (target) => {
        try {
          const response = await fetch(`${target}/admin/v1/catalog`);
          return `read ${response.status}`;
        } catch (error) {
          return `blocked: ${(error as Error).message}`;
        }
      }, faces.gateway.url);
      expect(outcome).toMatch(/^blocked: /);
      await failed;
      // The server refused it itself (its Origin), not only the browser for want of a CORS header.
      expect(answered.filter((line) => line.startsWith("GET /admin/v1/catalog "))).toEqual([expect.stringMatching(/^GET \/admin\/v1\/catalog 403 /)]);
      const rebound = await page.goto(`http://attacker.test:${new URL(faces.gateway.url).port}/console/`);
      expect(rebound?.status()).toBe(403);
      await page.close();
    } finally {
      // The browser keeps its connections to the site alive: cut them, or close() waits for them.
      site.server.closeAllConnections();
      await new Promise((resolve) => site.server.close(resolve));
    }
  });
});

describe("the console in Chromium under gateway.auth", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  let browser: Browser;
  beforeAll(async () => {
    if (SKIP_REASON !== undefined) return;
    faces = await startFaces({ gateway: { auth: { tokens: TOKENS } } });
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await faces?.close();
  });

  it("asks for the owner token, shows nothing without it, and everything with it", { timeout: 60_000 }, async () => {
    const { page, problems } = await browser.page();
    const unauthorized = page.waitForResponse((response) => response.url().endsWith("/admin/v1/catalog?limit=500"));
    await page.goto(`${faces.gateway.url}/console/#/catalog`);
    expect((await unauthorized).status()).toBe(401);
    await page.waitForSelector("form.token");
    expect(await page.locator("table.sources").count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, "console-token.png") });
    await page.fill("form.token input[name=token]", OWNER);
    await page.click("form.token button[type=submit]");
    await page.waitForSelector("table.sources tbody tr");
    expect(await page.locator("table.sources tbody tr").count()).toBe(2);
    // The refused first load is the only error the page saw (Chromium logs a failed fetch).
    expect(problems.filter((p) => !p.includes("401"))).toEqual([]);
    await page.close();
  });
});

/** A page on another origin (served here, reached as attacker.test) that scripts can run in. */
async function attackerSite(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>another site</title><p>nothing here</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
