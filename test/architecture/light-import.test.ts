/**
 * What `import("toolsearch")` loads (issue 34, item 1): a real Node process imports the package
 * by its name (its `exports` map), creates an engine over a core tool and searches, under the
 * module-load recorder (bench/lib/load-recorder.ts, built into dist/bench), and the test reads
 * back every module it loaded. The root entry loads the engine and the generated validators' ajv
 * runtime helpers, nothing else: no provider SDK, no MCP SDK (nor zod through it), no OTel, no
 * sandbox pool, no gateway. What a feature needs loads when it is first used.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packagesOf } from "../../bench/lib/load-recorder.js";
import { ROOT } from "../e2e/processes.js";

const require = createRequire(import.meta.url);
const memoryServer = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "toolsearch-loads-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** Runs `body` (an ES module that may import "toolsearch") in a fresh process under the recorder; every module it loaded. */
function loadedBy(body: string): string[] {
  const record = path.join(dir, `loads-${(runs += 1)}.txt`);
  execFileSync(process.execPath, ["--import", path.join(ROOT, "dist/bench/lib/load-recorder.js"), "--input-type=module", "-e", body], {
    cwd: ROOT,
    env: { ...process.env, TOOLSEARCH_LOAD_RECORD: record },
    encoding: "utf8",
    timeout: 60_000,
  });
  return [...new Set(readFileSync(record, "utf8").split("\n").filter(Boolean))];
}

const WEATHER = `coreTools([{ name: "get_weather", description: "Weather forecast for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } } }, execute: () => "sunny" }])`;

/** toolsearch's own modules among the loaded ones, as paths under dist/src. */
const ownModules = (loaded: readonly string[]): string[] =>
  loaded.flatMap((entry) => {
    const at = entry.replaceAll("\\", "/").indexOf("/dist/src/");
    return at === -1 ? [] : [entry.slice(at + "/dist/src/".length)];
  });

describe('import("toolsearch")', () => {
  it("with createToolSearch over core tools and a search, loads the engine and ajv's runtime helpers only", () => {
    const loaded = loadedBy(`
      const { createToolSearch, coreTools } = await import("toolsearch");
      const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [${WEATHER}] });
      const run = await engine.prepareRun({ sessionId: "s" });
      if ((await run.search("weather forecast"))[0]?.id !== "core:get_weather") throw new Error("search failed");
      await run.end();
      await engine.close();
    `);
    expect(packagesOf(loaded)).toEqual(["ajv", "fast-deep-equal"]);
    // Of ajv, only what the precompiled validators require: the compiler never loads.
    const ajvFiles = loaded.filter((entry) => /node_modules[\\/]ajv[\\/]/.test(entry)).map((entry) => entry.replace(/.*node_modules[\\/]ajv[\\/]/, ""));
    expect(ajvFiles.filter((file) => !/^dist[\\/]runtime[\\/]/.test(file))).toEqual([]);
    // Nor the code behind features this start did not use (the pool's options are checked at start: only they and their schema load).
    const unused =
      /^(sandbox\/pool\/(?!options\.js|pool-schema\.js)|sandbox\/child|gateway|mcpface|agent\/agent-turn|mcp\/connection|mcp\/client|learning\/learner|telemetry\/otlp)/;
    expect(ownModules(loaded).filter((file) => unused.test(file))).toEqual([]);
  });

  it("creating an MCP source loads no MCP SDK; starting one does", () => {
    const created = loadedBy(`
      const { mcpServer } = await import("toolsearch/mcp");
      mcpServer({ name: "memory", command: process.execPath, args: [${JSON.stringify(memoryServer)}] });
    `);
    expect(packagesOf(created)).not.toContain("@modelcontextprotocol/sdk");
    expect(packagesOf(created)).not.toContain("zod");

    const started = loadedBy(`
      const { createToolSearch, mcpServer } = await import("toolsearch");
      const engine = await createToolSearch({ toolSearch: { mode: "tools" },
        sources: [mcpServer({ name: "memory", command: process.execPath, args: [${JSON.stringify(memoryServer)}] })] });
      const run = await engine.prepareRun({ sessionId: "s" });
      if (!(await run.search("create entities")).some((hit) => hit.id.startsWith("mcp:memory:"))) throw new Error("no MCP tool found");
      await run.end();
      await engine.close();
    `);
    expect(packagesOf(started)).toContain("@modelcontextprotocol/sdk");
  });

  it("an engine started in code mode loads the sandbox pool (one in tools mode does not: above)", () => {
    const loaded = loadedBy(`
      const { createToolSearch, coreTools } = await import("toolsearch");
      const engine = await createToolSearch({ toolSearch: { mode: "code" }, pool: { prefork: 0 }, sources: [${WEATHER}] });
      await engine.close();
    `);
    expect(ownModules(loaded)).toContain("sandbox/pool/pool.js");
  });
});
