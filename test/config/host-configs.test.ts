/** Claude Desktop, Cursor and Cline configs move over unchanged: their keys are honoured or reported as ignored; a typo names its entry first. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveGatewayConfig } from "../../src/config/server-config.js";
import type { JsonObject } from "../../src/config/dot-path.js";

const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "fixtures", "host-configs", `${name}.json`), "utf8")) as JsonObject;
const env = { MCP_TOKEN: "t0ken", GITHUB_TOKEN: "gh" };

describe("other MCP hosts' configs", () => {
  it("Claude Desktop: every server, with its env", () => {
    const config = resolveGatewayConfig(fixture("claude-desktop"), "/cfg", env);
    expect(config.mcpServers.map((s) => s.name)).toEqual(["memory", "filesystem"]);
    expect(config.mcpServers[0]).toMatchObject({ command: "npx", env: { MEMORY_FILE_PATH: "/tmp/memory.jsonl" } });
    expect(config.notes).toEqual([]);
  });

  it("Cursor: stdio, url with headers, and a typed entry with cwd", () => {
    const config = resolveGatewayConfig(fixture("cursor"), "/cfg", env);
    expect(config.mcpServers.map((s) => s.name)).toEqual(["memory", "remote", "typed"]);
    expect(config.mcpServers[1]).toMatchObject({ url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t0ken" } });
    expect(config.mcpServers[2]).toMatchObject({ command: "node", cwd: "/srv/mcp" });
  });

  it("Cline: a disabled server is not started; autoApprove, alwaysAllow, timeout and transportType are reported as ignored", () => {
    const config = resolveGatewayConfig(fixture("cline"), "/cfg", env);
    expect(config.mcpServers.map((s) => s.name)).toEqual(["memory"]);
    expect(Object.keys(config.mcpServers[0]!).sort()).toEqual(["args", "command", "cwd", "env", "name"]);
    expect(config.notes).toEqual([
      expect.stringMatching(/^mcpServers\.memory\.autoApprove is ignored: approval is the approve hook's/),
      expect.stringMatching(/^mcpServers\.memory\.alwaysAllow is ignored/),
      expect.stringMatching(/^mcpServers\.memory\.timeout is ignored: each call has the engine's deadline/),
      expect.stringMatching(/^mcpServers\.memory\.transportType is ignored/),
      expect.stringMatching(/^mcpServers\.github\.autoApprove is ignored/),
    ]);
  });

  it("a keyed entry with a typo is told about that entry's key first, with the key meant", () => {
    expect(() => resolveGatewayConfig({ mcpServers: { memory: { comand: "node" } } }, "/cfg", env)).toThrow(
      /^config\.mcpServers\.memory: unknown option "comand" \(did you mean "command"\?\)/,
    );
    // Not the other form's complaint: the keyed form is an object, so "must be array" is never the message.
    expect(() => resolveGatewayConfig({ mcpServers: { memory: { comand: "node" } } }, "/cfg", env)).not.toThrow(/must be array/);
  });
});
