/**
 * `toolsearch config init`, `tools` and `search`, run as real processes in an empty folder: the
 * starter config's real MCP server (server-memory) and sample plugin, policy applied per
 * identity, `--explain`'s steps, and progress lines while a slow MCP server starts.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
const run = (cwd: string, ...args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
const memoryEntry = path.join(path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");

function initialized(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-init-"));
  const init = run(dir, "config", "init");
  expect(init.status, init.stderr).toBe(0);
  return dir;
}

interface ToolsJson {
  size: number;
  sources: Array<{ source: string; toolset: string; ok: boolean; tools: number; error?: string; list: Array<{ id: string; ownerOnly: boolean }> }>;
}

describe("toolsearch config init", () => {
  it("writes a commented config with a real MCP server and a sample plugin, which tools lists", () => {
    const dir = initialized();
    const text = readFileSync(path.join(dir, "toolsearch.config.json5"), "utf8");
    expect(text).toMatch(/^\/\/ toolsearch\.config\.json5, written by `toolsearch config init`/);
    expect(text).toContain("mcpServers: {");
    const listed = run(dir, "tools", "--json");
    expect(listed.status, listed.stderr).toBe(0);
    const json = JSON.parse(listed.stdout) as ToolsJson;
    expect(json.sources.map((s) => [`${s.source}:${s.toolset}`, s.ok, s.tools])).toEqual([
      ["plugin:sample", true, 3],
      ["mcp:memory", true, 9],
    ]);
    expect(json.size).toBe(12);
    expect(json.sources[1]!.list.map((t) => t.id)).toContain("mcp:memory:read_graph");
  });

  it("refuses to overwrite what is there unless --force", () => {
    const dir = initialized();
    const file = path.join(dir, "toolsearch.config.json5");
    writeFileSync(file, "{ plugins: [] }\n");
    const again = run(dir, "config", "init");
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("already exist");
    expect(again.stderr).toContain("--force");
    expect(readFileSync(file, "utf8")).toBe("{ plugins: [] }\n");
    expect(run(dir, "config", "init", "--force").status).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("mcpServers");
  });
});

describe("toolsearch tools", () => {
  it("prints each source's state and tools, one source with --source, and refuses an unknown one naming the others", () => {
    const dir = initialized();
    const text = run(dir, "tools");
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("12 tools in 2 sources (policy not applied)");
    expect(text.stdout).toMatch(/mcp:memory {2}ok, 9 tools\n {2}create_entities +Create multiple new entities/);
    const one = JSON.parse(run(dir, "tools", "--source", "mcp:memory", "--json").stdout) as ToolsJson;
    expect(one.sources.map((s) => s.toolset)).toEqual(["memory"]);
    const unknown = run(dir, "tools", "--source", "github");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('no source "github"; sources: plugin:sample, mcp:memory');
  });

  // Slow on purpose: several CLI runs, each starting the real memory server.
  it("applies policy for the identity given, and reports a server that is down with why", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-tools-"));
    writeFileSync(
      path.join(dir, "toolsearch.config.json5"),
      JSON.stringify({
        mcpServers: {
          memory: { command: process.execPath, args: [memoryEntry], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
          broken: { command: path.join(dir, "no-such-server") },
        },
        policy: { agents: { support: { deny: ["mcp:memory:delete_*"] } }, ownerOnly: ["mcp:memory:create_*"] },
      }),
    );
    const all = JSON.parse(run(dir, "tools", "--json").stdout) as ToolsJson;
    expect(all.sources.map((s) => [s.toolset, s.ok, s.tools])).toEqual([
      ["memory", true, 9],
      ["broken", false, 0],
    ]);
    expect(all.sources[1]!.error).toContain("no-such-server");
    expect(all.sources[0]!.list.filter((t) => t.ownerOnly).map((t) => t.id)).toEqual(["mcp:memory:create_entities", "mcp:memory:create_relations"]);
    const support = JSON.parse(run(dir, "tools", "--agent", "support", "--json").stdout) as ToolsJson;
    expect(support.sources[0]!.list.map((t) => t.id)).toEqual([
      "mcp:memory:add_observations",
      "mcp:memory:read_graph",
      "mcp:memory:search_nodes",
      "mcp:memory:open_nodes",
    ]);
    const owner = JSON.parse(run(dir, "tools", "--agent", "support", "--owner", "--json").stdout) as ToolsJson;
    expect(owner.sources[0]!.tools).toBe(6);
    expect(run(dir, "tools").stdout).toMatch(/mcp:broken {2}DOWN: .*no-such-server/);
  });

  it("says what it waits for when MCP servers take more than a second to start", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-slow-"));
    // The real memory server, started 1.5 s late.
    const late = "setTimeout(() => import(require('node:url').pathToFileURL(process.argv[1]).href), 1500)";
    writeFileSync(
      path.join(dir, "toolsearch.config.json5"),
      JSON.stringify({
        mcpServers: { slow: { command: process.execPath, args: ["-e", late, memoryEntry], env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } } },
      }),
    );
    const listed = run(dir, "tools", "--json");
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stderr).toContain("toolsearch tools: starting MCP server slow…");
    expect(listed.stderr).toMatch(/toolsearch tools: .*: done in \d+\.\ds/);
    // stdout stays the answer.
    expect((JSON.parse(listed.stdout) as ToolsJson).sources[0]).toMatchObject({ toolset: "slow", ok: true, tools: 9 });
  });
});

describe("toolsearch search", () => {
  it("prints the hits a run gets, and with --explain each list's per-word, per-field figures", () => {
    const dir = initialized();
    const hits = JSON.parse(run(dir, "search", "what is the weather in Paris", "--json").stdout) as Array<{ id: string; learned: boolean }>;
    expect(hits[0]).toMatchObject({ id: "plugin:sample:get_weather", learned: false });
    const explained = run(dir, "search", "list everything in the knowledge graph", "--explain", "--limit", "3");
    expect(explained.status, explained.stderr).toBe(0);
    expect(explained.stdout).toContain('3 hits for "list everything in the knowledge graph"');
    expect(explained.stdout).toContain("whole request: rank 1, relative score 1.000");
    expect(explained.stdout).toMatch(/word +term +via +score +name +toolset +description +params/);
    expect(explained.stdout).toMatch(/graph +graph +word +\d\.\d{3}/);
    expect(explained.stdout).toMatch(/sum \d\.\d{3} × coordination \d\.\d{3} × name precision \d\.\d{3} = \d\.\d{3}/);
    const json = JSON.parse(run(dir, "search", "list everything in the knowledge graph", "--explain", "--json").stdout) as Array<{
      detail: { steps: Array<{ step: string }> };
    }>;
    expect(json[0]!.detail.steps[0]).toMatchObject({ step: "whole" });
  });

  it("searches as the identity given, and refuses a missing request or a bad limit", () => {
    const dir = initialized();
    const config = path.join(dir, "toolsearch.config.json5");
    writeFileSync(config, readFileSync(config, "utf8").replace("// policy: {", 'policy: { agents: { support: { deny: ["plugin:sample:*"] } } }, // was: {'));
    const asSupport = JSON.parse(run(dir, "search", "weather forecast for Paris", "--agent", "support", "--json").stdout) as Array<{ id: string }>;
    expect(asSupport.map((h) => h.id)).not.toContain("plugin:sample:get_weather");
    expect(run(dir, "search").status).toBe(2);
    expect(run(dir, "search", "x", "--limit", "0").stderr).toContain("--limit must be a positive integer");
  });
});
