/**
 * `toolsearch mcp` as a real process, driven by the official SDK client over stdio and over
 * Streamable HTTP, in front of a real registry MCP server (server-memory) and a plugin.
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { childPids, isRunning } from "../support/proc.js";
import { CLI, startCli, type ServerProcess } from "../e2e/processes.js";
import { waitFor } from "../mcp/helpers.js";
import { faceFixture, memoryFileEnv } from "./fixture.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((item) => (item.type === "text" ? item.text : "")).join("");
}

async function stdioClient(
  configFile: string,
  env: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--config", configFile],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid;
  cleanups.push(async () => {
    await client.close();
    if (pid !== null) await waitFor(() => !isRunning(pid), "toolsearch mcp to exit", 10_000);
  });
  return { client, transport, stderr: () => stderr };
}

async function httpClient(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  const client = new Client({ name: "test-http", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

async function startHttp(configFile: string, env: Record<string, string>, ...extra: string[]): Promise<ServerProcess> {
  const server = await startCli(["mcp", "--config", configFile, "--http", "0", ...extra], env);
  cleanups.push(() => server.stop());
  return server;
}

describe("toolsearch mcp over stdio (tools mode)", () => {
  it(
    "lists the control tools, searches, describes and calls a downstream tool; hides denied tools; a killed downstream is TOOL_UNAVAILABLE",
    { timeout: 60_000 },
    async () => {
      const fixture = faceFixture();
      const { client, transport, stderr } = await stdioClient(fixture.configFile, memoryFileEnv(fixture.dir));
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed += 1;
      });

      expect(client.getInstructions()).toContain("tool_search");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["tool_call", "tool_describe", "tool_search"]);

      const search = await client.callTool({ name: "tool_search", arguments: { query: "create entities in the knowledge graph memory" } });
      expect(search.isError).toBeFalsy();
      expect(text(search)).toContain("mcp:memory:create_entities");

      // Denied by the global policy, and delete_* by the config identity's agent rule: never shown, never callable.
      for (const query of ["delete every user account admin", "delete entities from the knowledge graph"]) {
        const hits = text(await client.callTool({ name: "tool_search", arguments: { query, limit: 20 } }));
        expect(hits).not.toContain("secret_admin");
        expect(hits).not.toContain("mcp:memory:delete_");
      }
      const denied = await client.callTool({ name: "tool_call", arguments: { id: "plugin:acme:secret_admin" } });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain("TOOL_NOT_FOUND");

      const described = JSON.parse(text(await client.callTool({ name: "tool_describe", arguments: { id: "mcp:memory:create_entities" } }))) as {
        inputSchema: unknown;
      };
      expect(described.inputSchema).toMatchObject({ type: "object" });

      const created = await client.callTool({
        name: "tool_call",
        arguments: { id: "mcp:memory:create_entities", args: { entities: [{ name: "Ada", entityType: "person", observations: ["wrote programs"] }] } },
      });
      expect(created.isError).toBeFalsy();
      const graph = await client.callTool({ name: "tool_call", arguments: { id: "mcp:memory:read_graph", args: {} } });
      expect(text(graph)).toContain("Ada");

      // A tool failure is an isError result carrying the code.
      const bad = await client.callTool({ name: "tool_call", arguments: { id: "plugin:acme:echo_text", args: { text: 5 } } });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain("INVALID_ARGS");

      // A result past tools.toolSearch.maxResultBytes (64 KiB here) is cut, with a marker.
      const blob = text(await client.callTool({ name: "tool_call", arguments: { id: "plugin:acme:big_blob" } }));
      expect(Buffer.byteLength(blob)).toBeLessThanOrEqual(65_536);
      expect(blob).toContain("result cut to 65536");

      // Kill the downstream server (its wrapper now refuses to restart).
      writeFileSync(fixture.downFlag, "");
      const [downstream] = childPids(transport.pid!);
      expect(downstream).toBeDefined();
      process.kill(downstream!, "SIGKILL");
      await waitFor(() => changed > 0, "tools/list_changed forwarded", 10_000);
      const gone = await client.callTool({ name: "tool_call", arguments: { id: "mcp:memory:read_graph", args: {} } });
      expect(gone.isError).toBe(true);
      expect(text(gone)).toContain("TOOL_UNAVAILABLE");
      // Plugin tools still work.
      expect(text(await client.callTool({ name: "tool_call", arguments: { id: "plugin:acme:echo_text", args: { text: "hi" } } }))).toContain("hi");
      expect(stderr()).toMatch(/catalog \d+ tools \(plugin:acme 4, mcp:memory \d+\); mode tools/);
    },
  );
});

describe("toolsearch mcp in directory mode, and its bounds", () => {
  it("puts the directory of allowed tools in the server instructions, never a denied one", { timeout: 60_000 }, async () => {
    const fixture = faceFixture({ tools: { toolSearch: { mode: "directory" } }, mcpServers: {} });
    const { client } = await stdioClient(fixture.configFile, {});
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("echo_text");
    expect(instructions).not.toContain("secret_admin");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["tool_search", "tool_describe", "tool_call"]));
    expect(text(await client.callTool({ name: "echo_text", arguments: { text: "by name" } }))).toContain("by name");
  });

  it("stdio: a line past gateway.maxBodyBytes is skipped as it streams and answered BODY_TOO_LARGE; the session goes on", { timeout: 30_000 }, async () => {
    const fixture = faceFixture({ mcpServers: {}, gateway: { maxBodyBytes: 65_536 } });
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [CLI, "mcp", "--config", fixture.configFile], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    cleanups.push(async () => {
      child.kill("SIGKILL");
    });
    const answers = () =>
      stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id?: unknown; error?: unknown; result?: unknown });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`,
    );
    // Not a message at all, and no id to read: answered with id null.
    child.stdin.write(`${"x".repeat(200_000)}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    await waitFor(() => answers().some((a) => a.id === 2) || undefined, "the answer after the long line");
    expect(answers()).toContainEqual({ jsonrpc: "2.0", id: null, error: expect.objectContaining({ data: { code: "BODY_TOO_LARGE" } }) });
    expect(answers().find((a) => a.id === 2)).toHaveProperty("result.tools");
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});

describe("toolsearch mcp in code mode", () => {
  it("shows tool_search_code, whose body searches and calls through the same policy", { timeout: 60_000 }, async () => {
    const fixture = faceFixture({ tools: { toolSearch: { mode: "code" } }, mcpServers: {} });
    const { client } = await stdioClient(fixture.configFile, {});
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["tool_search_code"]);
    expect(client.getInstructions()).toContain("openclaw.tools.search");
    const code = 'const [hit] = await openclaw.tools.search("echo the text back"); return await openclaw.tools.call(hit.id, { text: "from code" });';
    const result = await client.callTool({ name: "tool_search_code", arguments: { code } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("from code");
    const denied = await client.callTool({
      name: "tool_search_code",
      arguments: { code: 'return await openclaw.tools.call("plugin:acme:secret_admin", {});' },
    });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain("TOOL_NOT_FOUND");
  });
});

describe("toolsearch mcp over Streamable HTTP", () => {
  it("tools mode: search, describe, call; sessions are separate runs; the denied tool never appears", { timeout: 60_000 }, async () => {
    const fixture = faceFixture();
    const server = await startHttp(fixture.configFile, memoryFileEnv(fixture.dir), "--verbose");
    const client = await httpClient(server.url);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["tool_call", "tool_describe", "tool_search"]);
    const hits = text(await client.callTool({ name: "tool_search", arguments: { queries: ["echo text back", "admin delete accounts"] } }));
    expect(hits).toContain("plugin:acme:echo_text");
    expect(hits).not.toContain("secret_admin");
    expect(text(await client.callTool({ name: "tool_describe", arguments: { id: "plugin:acme:echo_text" } }))).toContain('"required":["text"]');
    const echoed = await client.callTool({ name: "tool_call", arguments: { id: "plugin:acme:echo_text", args: { text: "over http" } } });
    expect(echoed.isError).toBeFalsy();
    expect(text(echoed)).toContain("over http");
    // A request the client cancels cancels the tool call (its AbortSignal fires).
    const marker = path.join(fixture.dir, "cancelled.txt");
    const controller = new AbortController();
    const pending = client.callTool({ name: "tool_call", arguments: { id: "plugin:acme:wait_for_cancel", args: { marker } } }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    await expect(pending).rejects.toThrow();
    await waitFor(() => existsSync(marker), "the tool to see the cancel");
    const second = await httpClient(server.url);
    expect(text(await second.callTool({ name: "tool_call", arguments: { id: "mcp:memory:read_graph", args: {} } }))).toContain("entities");
    await waitFor(() => /POST \/mcp 200 \d+ms session=[0-9a-f-]{36}/.test(server.stderr()) || undefined, "a request log line");
  });

  it("direct mode: every allowed tool under a stable name, none denied; failures are isError with the code", { timeout: 60_000 }, async () => {
    const fixture = faceFixture({ tools: { toolSearch: { mode: "direct" } } });
    const server = await startHttp(fixture.configFile, memoryFileEnv(fixture.dir));
    const client = await httpClient(server.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("echo_text");
    expect(names).toContain("read_graph");
    expect(names).not.toContain("secret_admin");
    expect(names.some((n) => n.startsWith("delete_"))).toBe(false);
    const again = await httpClient(server.url);
    expect((await again.listTools()).tools.map((t) => t.name)).toEqual(names);
    expect(text(await client.callTool({ name: "echo_text", arguments: { text: "direct" } }))).toContain("direct");
    const failed = await client.callTool({ name: "secret_admin", arguments: {} });
    expect(failed).toMatchObject({ isError: true });
    expect(text(failed)).toContain("TOOL_NOT_FOUND");
  });

  it("with gateway.auth: no token is 401 before anything is read; a token's session is not another token's", { timeout: 60_000 }, async () => {
    const tokens = [{ token: "a".repeat(32), agentId: "desk" }, { token: "b".repeat(32) }];
    const fixture = faceFixture({ mcpServers: {}, gateway: { auth: { tokens } } });
    const server = await startHttp(fixture.configFile, {});
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const anonymous = await fetch(server.url, { method: "POST", headers, body: JSON.stringify(init) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    const client = await httpClient(server.url, tokens[0]!.token);
    expect(text(await client.callTool({ name: "tool_call", arguments: { id: "plugin:acme:echo_text", args: { text: "ok" } } }))).toContain("ok");
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const stolen = await fetch(server.url, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${tokens[1]!.token}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(stolen.status).toBe(404);
    const huge = await fetch(server.url, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${tokens[0]!.token}` },
      body: "x".repeat(2 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
  });

  it("refuses a non-loopback --host without gateway.auth, in one line, exit 2", { timeout: 30_000 }, async () => {
    const fixture = faceFixture({ mcpServers: {} });
    const { spawnSync } = await import("node:child_process");
    const result = spawnSync(process.execPath, [CLI, "mcp", "--config", fixture.configFile, "--http", "0", "--host", "0.0.0.0"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(2);
    expect(
      result.stderr
        .trim()
        .split("\n")
        .filter((l) => l.includes("not a loopback")),
    ).toHaveLength(1);
  });
});
