/** The CLI rows of issue 10 as real processes: --config that is missing, bad configs, --version, the startup summary, --verbose. */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, ROOT, startCli, type ServerProcess } from "../e2e/processes.js";
import { waitFor } from "../mcp/helpers.js";
import { faceFixture, memoryFileEnv } from "../mcpface/fixture.js";

const run = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 30_000, env: { ...process.env, ...env } });
/** The same run without blocking, so that several CLI starts overlap (each costs a Node start and the CLI's imports). */
const runAsync = (cwd: string, args: string[]) =>
  new Promise<{ status: number | null; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 30_000 }, (error, _stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stderr }),
    );
  });
const tempDir = () => mkdtempSync(path.join(tmpdir(), "toolsearch-cli-"));
const lines = (text: string) => text.split("\n").filter(Boolean);

const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe("toolsearch CLI: config errors", () => {
  it("an explicit --config that does not exist exits 2 naming the file (serve, mcp, config get, config unset)", async () => {
    const dir = tempDir();
    const commands = [["serve"], ["mcp"], ["config", "get"], ["config", "unset", "tools.toolSearch"]];
    const results = await Promise.all(commands.map((args) => runAsync(dir, [...args, "--config", "nope.json5"])));
    for (const [i, args] of commands.entries()) {
      expect(results[i]!.status, args.join(" ")).toBe(2);
      expect(lines(results[i]!.stderr)).toEqual([`toolsearch ${args[0]}: config file ${path.join(dir, "nope.json5")} does not exist`]);
    }
  });

  it("an invalid config prints one line and exits 2 in serve and mcp, as in config", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "bad.json5"), "{ gateway: { port: 'eighty' } }");
    writeFileSync(path.join(dir, "typo.json5"), "{ mcpServer: [] }");
    writeFileSync(path.join(dir, "broken.json5"), "{ tools: ");
    const runs = ["bad.json5", "typo.json5", "broken.json5"].flatMap((file) => ["serve", "mcp"].map((command) => ({ file, command })));
    const results = await Promise.all(runs.map(({ file, command }) => runAsync(dir, [command, "--config", file])));
    for (const [i, { file, command }] of runs.entries()) {
      const result = results[i]!;
      expect(result.status, `${command} ${file}: ${result.stderr}`).toBe(2);
      expect(lines(result.stderr), `${command} ${file}`).toHaveLength(1);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
    expect(results[0]!.stderr).toContain("gateway.port");
  });

  it("a ${VAR} that is not set is an error naming the variable", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "toolsearch.config.json5"), '{ provider: { apiKey: "${TS_SURELY_UNSET_KEY}" } }');
    const result = run(dir, ["serve", "--port", "0"], {});
    expect(result.status).toBe(2);
    expect(lines(result.stderr)).toEqual([
      "toolsearch serve: provider.apiKey: the environment variable TS_SURELY_UNSET_KEY is not set (used as ${TS_SURELY_UNSET_KEY})",
    ]);
  });

  it("--version prints the package version", () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) expect(run(tempDir(), [flag])).toMatchObject({ status: 0, stdout: `${version}\n` });
  });
});

describe("toolsearch serve: startup summary and --verbose", () => {
  it(
    "prints the catalog by source, the sandbox line and a warning per MCP server down with the stderr line that says why; relative args resolve in the config's folder",
    { timeout: 60_000 },
    async () => {
      const fixture = faceFixture();
      writeFileSync(path.join(fixture.dir, "broken.mjs"), 'import "surely-not-an-installed-package";\n');
      const config = JSON.parse(readFileSync(fixture.configFile, "utf8")) as { mcpServers: Record<string, unknown> };
      config.mcpServers.broken = { command: process.execPath, args: ["./broken.mjs"] };
      writeFileSync(fixture.configFile, JSON.stringify(config));
      // Started from another folder: ./memory-wrapper.mjs and ./broken.mjs are the config folder's.
      const server = await startCli(["serve", "--config", fixture.configFile, "--port", "0", "--verbose"], { ...memoryFileEnv(fixture.dir) });
      servers.push(server);
      const stderr = server.stderr();
      expect(stderr).toMatch(/toolsearch serve: catalog \d+ tools \(plugin:acme 4, mcp:memory 9, mcp:broken down\); mode tools/);
      expect(stderr).toContain("toolsearch serve: sandbox: not used (mode tools)");
      expect(stderr).toMatch(/warning: MCP server "broken" is down: .*Cannot find package 'surely-not-an-installed-package'/);
      expect(stderr).not.toMatch(/\bat ModuleLoader/);
      await fetch(`${server.url}/healthz`);
      await waitFor(() => /GET \/healthz 200 \d+ms session=-/.test(server.stderr()) || undefined, "a request log line");
    },
  );
});
