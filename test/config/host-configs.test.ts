/** Claude Desktop, Cursor and Cline configs move over unchanged: their keys are honoured or reported as ignored; a typo names its entry first. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/config-file.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import type { JsonObject } from "../../src/config/dot-path.js";

const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "fixtures", "host-configs", `${name}.json`), "utf8")) as JsonObject;
const env = { MCP_TOKEN: "t0ken", GITHUB_TOKEN: "gh" };

describe("other MCP hosts' configs", () => {
  it("Claude Desktop: every server, with its env; the app's own keys (globalShortcut, preferences) are read past with a note", () => {
    expect(() => validateConfig(fixture("claude-desktop"))).not.toThrow();
    const config = resolveServerConfig(fixture("claude-desktop"), "/cfg", env);
    expect(config.mcpServers.map((s) => s.name)).toEqual(["memory", "filesystem"]);
    expect(config.mcpServers[0]).toMatchObject({ command: "npx", env: { MEMORY_FILE_PATH: "/tmp/memory.jsonl" } });
    expect(config.notes).toEqual(["globalShortcut is ignored: a Claude Desktop setting", "preferences is ignored: Claude Desktop's app settings"]);
  });

  it("VS Code: servers is read as mcpServers, inputs and envFile are ignored with a note (their ${…} never read)", () => {
    expect(() => validateConfig(fixture("vscode"))).not.toThrow();
    const config = resolveServerConfig(fixture("vscode"), "/cfg", env);
    expect(config.mcpServers.map((s) => s.name)).toEqual(["memory", "remote"]);
    expect(config.mcpServers[0]).toEqual({ name: "memory", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], cwd: "/cfg" });
    expect(config.mcpServers[1]).toMatchObject({ url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t0ken" } });
    expect(config.notes).toEqual([
      "servers is read as mcpServers (VS Code's name for them)",
      expect.stringMatching(/^inputs is ignored: VS Code's prompts/),
      expect.stringMatching(/^servers\.memory\.envFile is ignored: VS Code's; put the variables in env/),
    ]);
  });

  it("servers beside mcpServers: both are read, a name in both is refused; any other unknown section is still refused", () => {
    const both = resolveServerConfig({ mcpServers: { a: { command: "node" } }, servers: { b: { command: "node" } } }, "/cfg", env);
    expect(both.mcpServers.map((s) => s.name)).toEqual(["a", "b"]);
    expect(() => resolveServerConfig({ mcpServers: { a: { command: "node" } }, servers: { a: { command: "node" } } }, "/cfg", env)).toThrow(
      /^servers\.a: a second server named "a"/,
    );
    expect(() => resolveServerConfig({ servers: { a: { comand: "node" } } }, "/cfg", env)).toThrow(/config\.servers\.a: unknown option "comand"/);
    expect(() => validateConfig({ polciy: {} })).toThrow(/unknown section "polciy"/);
  });

  it("Cursor: stdio, url with headers, and a typed entry with cwd", () => {
    const config = resolveServerConfig(fixture("cursor"), "/cfg", env);
    expect(config.mcpServers.map((s) => s.name)).toEqual(["memory", "remote", "typed"]);
    expect(config.mcpServers[1]).toMatchObject({ url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t0ken" } });
    expect(config.mcpServers[2]).toMatchObject({ command: "node", cwd: "/srv/mcp" });
  });

  it("Cline: a disabled server is not started; timeout (seconds) is the call timeout; autoApprove, alwaysAllow and transportType are reported as ignored", () => {
    const config = resolveServerConfig(fixture("cline"), "/cfg", env);
    expect(config.mcpServers.map((s) => s.name)).toEqual(["memory"]);
    expect(Object.keys(config.mcpServers[0]!).sort()).toEqual(["args", "command", "cwd", "env", "name", "options"]);
    expect(config.mcpServers[0]!.options).toEqual({ callTimeoutMs: 60_000 });
    expect(config.notes).toEqual([
      expect.stringMatching(/^mcpServers\.memory\.autoApprove is ignored: approval is the approve hook's/),
      expect.stringMatching(/^mcpServers\.memory\.alwaysAllow is ignored/),
      expect.stringMatching(/^mcpServers\.memory\.transportType is ignored/),
      "mcpServers.memory.timeout 60 is read as seconds, as Cline and Roo Code write it: callTimeoutMs 60000",
      expect.stringMatching(/^mcpServers\.github\.autoApprove is ignored/),
    ]);
  });

  it("timeout: up to 3,600 is seconds (Cline, Roo Code), above is milliseconds (Gemini CLI, Claude Code); callTimeoutMs wins over it", () => {
    const resolve = (entry: Record<string, unknown>) => resolveServerConfig({ mcpServers: { s: { command: "node", ...entry } } } as JsonObject, "/cfg", env);
    expect(resolve({ timeout: 30 }).mcpServers[0]!.options).toEqual({ callTimeoutMs: 30_000 });
    expect(resolve({ timeout: 3_600 }).mcpServers[0]!.options).toEqual({ callTimeoutMs: 3_600_000 });
    expect(resolve({ timeout: 600_000 }).mcpServers[0]!.options).toEqual({ callTimeoutMs: 600_000 });
    expect(resolve({ timeout: 600_000 }).notes).toEqual([
      "mcpServers.s.timeout 600000 is read as milliseconds, as Gemini CLI and Claude Code write it: callTimeoutMs 600000",
    ]);
    expect(resolve({ timeout: 86_400_000 }).mcpServers[0]!.options).toEqual({ callTimeoutMs: 3_600_000 });
    const both = resolve({ timeout: 30, callTimeoutMs: 5_000 });
    expect(both.mcpServers[0]!.options).toEqual({ callTimeoutMs: 5_000 });
    expect(both.notes).toEqual(["mcpServers.s.timeout is ignored: callTimeoutMs is given too"]);
    expect(() => resolve({ timeout: 0 })).toThrow(/mcpServers\.s\.timeout/);
  });

  it("each server entry takes its own connectTimeoutMs, startupTimeoutMs, callTimeoutMs, maxConcurrentCalls and maxQueuedCallsPerTenant", () => {
    const config = resolveServerConfig(
      {
        mcpServers: [
          {
            name: "slow",
            command: "npx",
            args: ["-y", "some-server"],
            connectTimeoutMs: 2_000,
            startupTimeoutMs: 120_000,
            callTimeoutMs: 30_000,
            maxConcurrentCalls: 2,
            maxQueuedCallsPerTenant: 8,
          },
          { name: "plain", url: "https://mcp.example.com/mcp" },
        ],
      },
      "/cfg",
      env,
    );
    expect(config.mcpServers[0]).toEqual({
      name: "slow",
      command: "npx",
      args: ["-y", "some-server"],
      cwd: "/cfg",
      options: { connectTimeoutMs: 2_000, startupTimeoutMs: 120_000, callTimeoutMs: 30_000, maxConcurrentCalls: 2, maxQueuedCallsPerTenant: 8 },
    });
    expect(config.mcpServers[1]).toEqual({ name: "plain", url: "https://mcp.example.com/mcp" });
    expect(() => resolveServerConfig({ mcpServers: { s: { command: "node", maxConcurrentCalls: 0 } } }, "/cfg", env)).toThrow(
      /mcpServers\.s\.maxConcurrentCalls/,
    );
  });

  it("a keyed entry with a typo is told about that entry's key first, with the key meant", () => {
    expect(() => resolveServerConfig({ mcpServers: { memory: { comand: "node" } } }, "/cfg", env)).toThrow(
      /^config\.mcpServers\.memory: unknown option "comand" \(did you mean "command"\?\)/,
    );
    // Not the other form's complaint: the keyed form is an object, so "must be array" is never the message.
    expect(() => resolveServerConfig({ mcpServers: { memory: { comand: "node" } } }, "/cfg", env)).not.toThrow(/must be array/);
  });
});
