/**
 * The package as users get it: `npm pack`, installed into a fresh ESM project and a fresh
 * CommonJS project (dependencies from the npm cache, the registry when the cache lacks them),
 * imported / required, searched; the installed bin answers --version and runs the demo
 * without its devDependency MCP servers, saying what it skipped and leaving nothing behind; and
 * a new user's first minutes: `config init` in an empty project, `serve`, the console's page and
 * a search that says why its first hit is first.
 *
 * Slow on purpose, every test past 5 s: each installs the packed tarball into a fresh project
 * with npm, then starts Node (or the installed bin) in it.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../e2e/processes.js";
import { readmeLibraryExample } from "../support/readme-example.js";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let work: string;
let tarball: string;

const SEARCH = (load: string) => `${load}
const tools = coreTools([{ name: "get_weather", description: "Weather forecast for a city.", inputSchema: { type: "object", properties: { city: { type: "string" } } }, execute: () => "sunny" }]);
const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [tools] });
const run = await engine.prepareRun({ sessionId: "s" });
console.log(JSON.stringify((await run.search("weather forecast")).map((hit) => hit.id)));
await run.end();
await engine.close();
`;

/** A fresh project with the tarball installed (and `extra` packages, at the versions this repository pins). */
function project(name: string, type: "module" | "commonjs", extra: string[] = []): string {
  const dir = path.join(work, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, type }));
  const pinned = extra.map((pkg) => `${pkg}@${pinnedVersion(pkg)}`);
  execFileSync(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", tarball, ...pinned], {
    cwd: dir,
    stdio: "pipe",
    timeout: 240_000,
  });
  return dir;
}

function pinnedVersion(pkg: string): string {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  const version = manifest.devDependencies[pkg];
  if (version === undefined) throw new Error(`${pkg} is not a devDependency of this repository`);
  return version;
}

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "toolsearch-pack-"));
  // dist is built by `npm test` (pretest); --ignore-scripts keeps pack from building again.
  const [packed] = JSON.parse(
    execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: ROOT, encoding: "utf8", timeout: 120_000 }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(work, packed!.filename);
  const files = packed!.files.map((f) => f.path);
  expect(files).toContain("dist/src/cli/main.js");
  expect(files).toContain("dist/src/index.d.ts");
  // The search engine: every query is scored by it, and nothing falls back when it is missing.
  expect(files).toContain("dist/wasm/bm25f-core.wasm");
  // The web console, served from the package itself (no CDN).
  expect(files).toContain("dist/console/index.html");
  expect(files.filter((f) => f.startsWith("dist/console/assets/") && f.endsWith(".js"))).toHaveLength(1);
  expect(files.some((f) => f.startsWith("test/") || f.startsWith("src/"))).toBe(false);
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("the packed package", () => {
  it("imports in an ESM project and searches", { timeout: 300_000 }, () => {
    const dir = project("esm-app", "module");
    writeFileSync(path.join(dir, "main.js"), SEARCH('import { coreTools, createToolSearch } from "toolsearch";'));
    expect(execFileSync(process.execPath, ["main.js"], { cwd: dir, encoding: "utf8", timeout: 60_000 }).trim()).toBe('["core:get_weather"]');
    // The subpath entries: the same APIs as the root's, each loading only its own part.
    writeFileSync(
      path.join(dir, "subpaths.js"),
      'const { mcpServer } = await import("toolsearch/mcp");\nconst { runAgentTurn, MAX_CALLS_PER_RESPONSE } = await import("toolsearch/agent");\n' +
        "console.log(typeof mcpServer, typeof runAgentTurn, MAX_CALLS_PER_RESPONSE);\n",
    );
    expect(execFileSync(process.execPath, ["subpaths.js"], { cwd: dir, encoding: "utf8", timeout: 60_000 }).trim()).toBe("function function 32");
  });

  it(
    "runs the README's library example and every examples/*.mjs as written with node, and the example compiles as TypeScript --strict",
    { timeout: 300_000 },
    () => {
      // As the README says: npm install <tarball> @modelcontextprotocol/server-memory, then node app.mjs.
      const dir = project("example-app", "module", ["@modelcontextprotocol/server-memory", "@types/node"]);
      const readmeExample = readmeLibraryExample(readFileSync(path.join(ROOT, "README.md"), "utf8"));
      writeFileSync(path.join(dir, "app.mjs"), readmeExample);
      const examples = readdirSync(path.join(ROOT, "examples")).filter((file) => file.endsWith(".mjs"));
      expect(examples).toContain("library.mjs");
      for (const file of examples) writeFileSync(path.join(dir, file), readFileSync(path.join(ROOT, "examples", file), "utf8"));

      const stdout = new Map<string, string>();
      for (const file of ["app.mjs", ...examples]) {
        const ran = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 120_000 });
        expect(ran.status, `${file}: ${ran.stderr}`).toBe(0);
        expect(ran.stderr, file).not.toContain("is down");
        stdout.set(file, ran.stdout);
      }
      for (const file of ["app.mjs", "library.mjs"]) {
        const out = stdout.get(file);
        // The code-mode body the model sent found and called the core tool.
        expect(out, file).toContain('{"ok":true,"value":{"city":"Oslo","sky":"clear"}');
        // The MCP server started, its read tool is found (policy hides only its deletes) and answers.
        expect(out, file).toMatch(/^mcp:memory:read_graph \{"ok":true,"id":"mcp:memory:read_graph","source":"mcp"/m);
        // The denied plugin tool is not found, as if it never existed.
        expect(out, file).toContain('{"ok":false,"id":"plugin:github:delete_repo","error":{"code":"TOOL_NOT_FOUND"');
      }

      // The same text is a TypeScript --strict module: the public types cover what it uses.
      writeFileSync(path.join(dir, "app.ts"), readmeExample);
      const compilerOptions = { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, types: ["node"] };
      writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["app.ts"] }));
      const tsc = spawnSync(process.execPath, [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], {
        cwd: dir,
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
    },
  );

  it(
    "a global install gives the `toolsearch` command the README's Claude Desktop entry runs, and an MCP client gets the control tool",
    { timeout: 300_000 },
    async () => {
      const prefix = path.join(work, "global");
      execFileSync(npm, ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", tarball], {
        stdio: "pipe",
        timeout: 240_000,
      });
      const config = path.join(work, "desktop.config.json5");
      writeFileSync(config, '{ tools: { toolSearch: { mode: "code" } } }');
      // As in README: { "command": "toolsearch", "args": ["mcp", "--config", "/abs/path/toolsearch.config.json5"] }, with npm's global bin on PATH.
      const transport = new StdioClientTransport({
        command: "toolsearch",
        args: ["mcp", "--config", config],
        env: { PATH: `${path.join(prefix, "bin")}${path.delimiter}${process.env.PATH ?? ""}` },
        stderr: "pipe",
      });
      const client = new Client({ name: "packaging-test", version: "1.0.0" });
      try {
        await client.connect(transport);
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["tool_search_code"]);
      } finally {
        await client.close();
      }
    },
  );

  it(
    "requires in a CommonJS project (Node >= 20.19) and searches; the installed bin prints --version and runs the demo without devDependencies",
    { timeout: 300_000 },
    () => {
      const dir = project("cjs-app", "commonjs");
      writeFileSync(path.join(dir, "main.js"), `(async () => {\n${SEARCH('const { coreTools, createToolSearch } = require("toolsearch");')}\n})();\n`);
      expect(execFileSync(process.execPath, ["--no-warnings", "main.js"], { cwd: dir, encoding: "utf8", timeout: 60_000 }).trim()).toBe('["core:get_weather"]');

      // toolsearch/ai-sdk loads from require too; without its optional peer `ai` it says what to install.
      writeFileSync(
        path.join(dir, "ai.js"),
        'const { aiSdkTools } = require("toolsearch/ai-sdk");\ntry { aiSdkTools({}); } catch (e) { console.log(e.code + " " + e.message); }\n',
      );
      expect(execFileSync(process.execPath, ["--no-warnings", "ai.js"], { cwd: dir, encoding: "utf8", timeout: 60_000 }).trim()).toBe(
        'CONFIG_INVALID toolsearch/ai-sdk needs the optional peer dependency "ai" (version 6): run npm install ai@^6',
      );

      const bin = path.join(dir, "node_modules", ".bin", "toolsearch");
      const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
      expect(execFileSync(bin, ["--version"], { cwd: dir, encoding: "utf8" }).trim()).toBe(version);

      // The demo's temporary folder goes to a TMPDIR of its own, so "nothing left behind" can be checked.
      const demoTmp = path.join(work, "demo-tmp");
      mkdirSync(demoTmp);
      const demo = spawnSync(bin, ["demo", "--tools", "50"], { cwd: dir, encoding: "utf8", timeout: 120_000, env: { ...process.env, TMPDIR: demoTmp } });
      expect(demo.error).toBeUndefined();
      expect(demo.status, demo.stderr).toBe(0);
      expect(demo.stderr).toContain("skipped the @modelcontextprotocol/server-everything MCP server: not installed");
      expect(demo.stdout).toMatch(/\| 1\s+\| code\s+\| 1\s+\|/);
      expect(readdirSync(demoTmp)).toEqual([]);
    },
  );

  it(
    "a new user: config init in an empty project, serve, the console's page, and a search that says why its first hit is first",
    { timeout: 300_000 },
    async () => {
      const dir = project("new-user", "module", ["@modelcontextprotocol/server-memory"]);
      const bin = path.join(dir, "node_modules", ".bin", "toolsearch");
      const init = spawnSync(bin, ["config", "init"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      expect(init.status, init.stderr).toBe(0);
      expect(init.stderr).toContain("starts with node (@modelcontextprotocol/server-memory is installed)");
      const server = spawn(bin, ["serve", "--port", "0"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = "";
          let err = "";
          server.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
          server.stdout!.on("data", (chunk: Buffer) => {
            out += chunk.toString();
            const match = /listening (\S+)/.exec(out);
            if (match) resolve(match[1]!);
          });
          server.once("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
        });
        const page = await fetch(`${url}/console/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<div id="app"></div>');
        const catalog = (await (await fetch(`${url}/admin/v1/catalog`)).json()) as { sources: Array<{ toolset: string; ok: boolean; tools: number }> };
        expect(catalog.sources.map((s) => [s.toolset, s.ok, s.tools])).toEqual([
          ["sample", true, 3],
          ["memory", true, 9],
        ]);
        const search = await fetch(`${url}/admin/v1/search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ request: "what is the weather in Paris", limit: 3 }),
        });
        const { hits } = (await search.json()) as {
          hits: Array<{ id: string; detail: { steps: Array<{ step: string; bm25f?: { words: Array<{ word: string }> } }> } }>;
        };
        expect(hits[0]!.id).toBe("plugin:sample:get_weather");
        expect(hits[0]!.detail.steps[0]!.bm25f!.words.map((w) => w.word)).toContain("weather");
      } finally {
        server.kill("SIGTERM");
        await new Promise((resolve) => server.once("exit", resolve));
      }
    },
  );
});
