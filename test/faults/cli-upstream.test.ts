/**
 * `toolsearch mcp` (stdio, the built CLI) with a hung server in its config: it answers
 * `initialize` once its connect timeout (set in the config file) has passed, serves the other
 * servers' tools while the hung one keeps starting, and says each server's state on stderr as it
 * happens.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "../e2e/processes.js";
import { FAULT_SERVER, isRunning, NEVER_MS, waitFor } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function text(result: unknown): string {
  return (result as CallToolResult).content.map((item) => (item.type === "text" ? item.text : "")).join("");
}

describe("toolsearch mcp with a hung upstream server", () => {
  it("answers initialize and serves the other server's tools while the hung one is still connecting", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-faults-cli-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const configFile = path.join(dir, "toolsearch.config.json5");
    writeFileSync(
      configFile,
      JSON.stringify({
        tools: { toolSearch: { mode: "tools" } },
        mcpServers: {
          steady: { command: process.execPath, args: [FAULT_SERVER] },
          hung: { command: process.execPath, args: [FAULT_SERVER], env: { FAULT_START_DELAY_MS: String(NEVER_MS) }, connectTimeoutMs: 500 },
        },
      }),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--config", configFile],
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid;
    cleanups.push(async () => {
      await client.close();
      if (pid !== null) await waitFor(() => !isRunning(pid), "toolsearch mcp to exit", 15_000);
    });

    expect(stderr).toMatch(/toolsearch mcp: steady: ready in \d+\.\d s, 4 tools/);
    expect(stderr).toContain("toolsearch mcp: hung: still connecting after 0.5 s, retrying in the background");
    const called = await client.callTool({ name: "tool_call", arguments: { id: "mcp:steady:echo", args: { text: "hi" } } });
    expect(text(called)).toContain("echo:hi");
    const hits = text(await client.callTool({ name: "tool_search", arguments: { query: "echo the text back" } }));
    expect(hits).toContain("mcp:steady:echo");
    expect(hits).not.toContain("mcp:hung:");
    // Still on its first start (startupTimeoutMs is 60 s): no try of it has failed.
    expect(stderr).not.toMatch(/MCP server "hung" is down/);
  });
});
