/** The `toolsearch config` CLI, run as a real process against a temporary config file. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import JSON5 from "json5";
import { describe, expect, it } from "vitest";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
const run = (cwd: string, ...args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });

describe("toolsearch config", () => {
  it("sets, gets and unsets tools.toolSearch, keeping the file valid JSON5", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-cli-"));
    expect(run(dir, "config", "set", "tools.toolSearch", "true").status).toBe(0);
    expect(JSON5.parse(readFileSync(path.join(dir, "toolsearch.config.json5"), "utf8"))).toEqual({ tools: { toolSearch: true } });
    expect(run(dir, "config", "set", "tools.toolSearch.mode", "directory").status).toBe(0);
    expect(run(dir, "config", "set", "tools.toolSearch.directory.maxChars", "9000").status).toBe(0);
    expect(run(dir, "config", "get", "tools.toolSearch.mode").stdout.trim()).toBe("directory");
    expect(JSON.parse(run(dir, "config", "get").stdout)).toEqual({ tools: { toolSearch: { mode: "directory", directory: { maxChars: 9000 } } } });
    expect(run(dir, "config", "unset", "tools.toolSearch.directory").status).toBe(0);
    expect(JSON.parse(run(dir, "config", "get", "tools.toolSearch").stdout)).toEqual({ mode: "directory" });
    expect(readdirSync(dir)).toEqual(["toolsearch.config.json5"]);
  });

  it("rejects an invalid value with the path, the value and what is allowed, and leaves the file as it was", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-cli-"));
    const file = path.join(dir, "custom.json5");
    writeFileSync(file, "{ tools: { toolSearch: { mode: 'tools' } } }\n");
    const bad = run(dir, "config", "set", "tools.toolSearch.mode", "fast", "--config", file);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('tools.toolSearch.mode: must be one of "direct", "code", "tools", "directory"; got "fast"');
    expect(readFileSync(file, "utf8")).toBe("{ tools: { toolSearch: { mode: 'tools' } } }\n");
    expect(run(dir, "config", "set", "tools.toolSearch.codeTimeoutMs", "soon", "--config", file).stderr).toContain(
      'tools.toolSearch.codeTimeoutMs: must be an integer from 1000 to 60000; got "soon" (string)',
    );
  });

  it("has --help on every command and exits 2 on usage errors", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-cli-"));
    expect(run(dir, "--help").status).toBe(0);
    expect(run(dir, "config", "--help")).toMatchObject({ status: 0, stdout: expect.stringContaining("Usage: toolsearch config") });
    expect(run(dir, "demo", "--help")).toMatchObject({ status: 0, stdout: expect.stringContaining("Usage: toolsearch demo") });
    expect(run(dir, "config", "set", "only.path").status).toBe(2);
    expect(run(dir, "config", "get", "bad..path").status).toBe(2);
    expect(run(dir, "config", "--bogus").status).toBe(2);
    expect(run(dir, "frobnicate").status).toBe(2);
    expect(run(dir, "config", "get", "tools.toolSearch").status).toBe(1);
  });
});
