/** `mcp --http` refuses what cannot work before it spawns anything: a token the mcp section conflicts with, a non-loopback host without auth. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CLI } from "../e2e/processes.js";
import { faceFixture, memoryFileEnv } from "../mcpface/fixture.js";

function mcp(configFile: string, dir: string, args: string[]) {
  return spawnSync(process.execPath, [CLI, "mcp", "--config", configFile, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, ...memoryFileEnv(dir), TS_TOKEN_REMOTE: "remote-token-0123456789abcdef" },
  });
}

describe("mcp --http start checks", () => {
  it("a token whose agentId the mcp section contradicts exits 2 naming both, before any MCP server starts", () => {
    const fixture = faceFixture({ mcp: { agentId: "desktop" }, gateway: { auth: { tokens: [{ tokenEnv: "TS_TOKEN_REMOTE", agentId: "remote" }] } } });
    const result = mcp(fixture.configFile, fixture.dir, ["--http", "0"]);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain('gateway.auth.tokens.0 conflicts with the mcp section: mcp.agentId: this token runs as agent "remote", not "desktop"');
    // The start summary (printed once the catalog is up) never came: nothing was spawned.
    expect(result.stderr).not.toContain("catalog");
  });

  it("a token the mcp section only narrows is fine (owner: false, its own agent)", () => {
    const fixture = faceFixture({
      mcp: { agentId: "remote", owner: false },
      gateway: { auth: { tokens: [{ tokenEnv: "TS_TOKEN_REMOTE", agentId: "remote" }] } },
    });
    // --host with a name that is not an address of this machine: past the identity check, the bind fails (exit 2) after the start.
    const result = mcp(fixture.configFile, fixture.dir, ["--http", "0", "--host", "192.0.2.1"]);
    expect(result.stderr).not.toContain("conflicts with the mcp section");
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain("192.0.2.1 is not an address of this machine");
  });

  it("a non-loopback --host without gateway.auth exits 2 before any MCP server starts", () => {
    const fixture = faceFixture();
    const result = mcp(fixture.configFile, fixture.dir, ["--http", "0", "--host", "0.0.0.0"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--host "0.0.0.0" is not a loopback address');
    expect(result.stderr).not.toContain("catalog");
  });
});
