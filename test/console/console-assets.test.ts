/**
 * The console's files as the package ships them (dist/console, built by npm run build) and as
 * the faces serve them: a strict Content-Security-Policy on every answer, no inline script or
 * style and nothing from another origin in the page, only files of that folder (a path that
 * climbs out, or names no file, is a 404), /console sent on to /console/.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../../src/console/console-assets.js";
import { ROOT } from "../e2e/processes.js";
import { call, startFaces } from "../admin/fixture.js";

const DIST = path.join(ROOT, "dist/console");

describe("the console as built", () => {
  it("is a page whose scripts and styles are files of its own, with no inline code and no other origin", () => {
    const page = readFileSync(path.join(DIST, "index.html"), "utf8");
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\.\/assets\/[^"]+\.js"/);
      expect(body!.trim()).toBe("");
    }
    expect(page).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/i);
    expect(page).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    const files = readdirSync(path.join(DIST, "assets"));
    expect(files.filter((f) => f.endsWith(".js"))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith(".css"))).toHaveLength(1);
  });

  it("allows scripts, styles and requests from its own origin only, and no framing", () => {
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("style-src 'self'");
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-(inline|eval)|https?:|\*/);
  });
});

describe("the console as the faces serve it", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  beforeAll(async () => {
    faces = await startFaces();
  }, 60_000);
  afterAll(async () => {
    await faces?.close();
  });

  it("serves the page and its files with the policy, and nothing outside its folder", async () => {
    const redirect = await fetch(`${faces.gateway.url}/console`, { redirect: "manual" });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get("location")).toBe("/console/");
    const page = await fetch(`${faces.gateway.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(await page.text())![1]!;
    const asset = await fetch(`${faces.gateway.url}/console/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    for (const probe of ["/console/../package.json", "/console/%2e%2e/package.json", "/console/assets/../../src/index.js", "/console/nope.js"]) {
      const answer = await call(`${faces.gateway.url}${probe}`);
      expect(answer.status, probe).toBe(404);
    }
    expect((await call(`${faces.gateway.url}/console/`, { method: "POST", body: {} })).status).toBe(404);
  });
});
