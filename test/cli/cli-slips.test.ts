/** The small CLI slips of a first hour: a mistyped command or option is named with the one meant; a number out of range is refused. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import JSON5 from "json5";
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { CLI, startCli } from "../e2e/processes.js";

const run = (args: string[], cwd = process.cwd()) => spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 60_000 });

describe("CLI slips", () => {
  it("a mistyped command gets a did-you-mean and exit 2", () => {
    const result = run(["sevre"]);
    expect(result.status).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe('toolsearch: unknown command "sevre"; did you mean "serve"?');
  });

  it("a mistyped option names the option and the one meant, not Node's advice about positionals", () => {
    const result = run(["serve", "--conifg", "x.json5"]);
    expect(result.status).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe("toolsearch serve: unknown option --conifg; did you mean --config?");
    expect(result.stderr).not.toContain("positional");
    expect(run(["mcp", "--verbos"]).stderr.split("\n")[0]).toBe("toolsearch mcp: unknown option --verbos; did you mean --verbose?");
  });

  it("config set refuses a number outside its range, naming the key, the range and the value, and leaves the file as it was", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-slips-"));
    expect(run(["config", "set", "tools.toolSearch.codeTimeoutMs", "9000"], dir).status).toBe(0);
    const over = run(["config", "set", "tools.toolSearch.codeTimeoutMs", "999999"], dir);
    expect(over.status).toBe(2);
    expect(over.stderr).toContain("tools.toolSearch.codeTimeoutMs: must be an integer from 1000 to 60000; got 999999 (number)");
    expect(readFileSync(path.join(dir, "toolsearch.config.json5"), "utf8")).toContain("9000");
    expect(readFileSync(path.join(dir, "toolsearch.config.json5"), "utf8")).not.toContain("999999");
  });

  it("config set refuses a value begun as JSON5 that does not parse, and takes bare text (a word, a URL) as a string", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-slips-"));
    const broken = run(["config", "set", "tools.toolSearch", "{mode: tools"], dir);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toMatch(/^toolsearch config: the value \{mode: tools is not valid JSON5 \(.+\); fix it, or quote it whole/);
    expect(existsSync(path.join(dir, "toolsearch.config.json5"))).toBe(false);
    expect(run(["config", "set", "provider.baseURL", "http://127.0.0.1:8787/v1"], dir).status).toBe(0);
    expect(run(["config", "set", "tools.toolSearch.mode", "directory"], dir).status).toBe(0);
    expect(JSON5.parse(readFileSync(path.join(dir, "toolsearch.config.json5"), "utf8"))).toEqual({
      provider: { baseURL: "http://127.0.0.1:8787/v1" },
      tools: { toolSearch: { mode: "directory" } },
    });
  });

  it("serve says at start which provider and model it will call, and which config keys it ignores", { timeout: 90_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-slips-"));
    const config = path.join(dir, "toolsearch.config.json5");
    writeFileSync(
      config,
      JSON.stringify({
        provider: { baseURL: "http://127.0.0.1:9/v1", model: "gpt-test" },
        mcpServers: { off: { command: "nope", disabled: true, autoApprove: ["x"] } },
      }),
    );
    const server = await startCli(["serve", "--config", config, "--port", "0"]);
    try {
      expect(server.stderr()).toContain("toolsearch serve: provider chat at http://127.0.0.1:9/v1, model gpt-test");
      expect(server.stderr()).toContain("toolsearch serve: note: mcpServers.off.autoApprove is ignored");
    } finally {
      await server.stop();
    }
  });

  it("demo --help says what the demo runs", () => {
    expect(run(["demo", "--help"]).stdout).toContain("Runs two requests");
  });
});
