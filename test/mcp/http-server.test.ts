/** SDK servers built here, over Streamable HTTP on 127.0.0.1: pagination, list_changed, death, reconnect, down at start. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { createToolAjv } from "../../src/validation/ajv.js";
import { closedAfterEach, nextChange, textTool, toolContext, waitFor } from "./helpers.js";

const { cleanup, server, source } = closedAfterEach();

const ctx = (id = "mcp:t:x", signal?: AbortSignal) => toolContext(id, signal);

describe("mcpServer over Streamable HTTP", () => {
  it("follows nextCursor through every page, and calls a tool by its original name", async () => {
    const tools = Array.from({ length: 23 }, (_, i) => textTool(`tool_${String(i).padStart(2, "0")}`));
    const http = await server(tools, 5);
    const s = source({ name: "paged", url: http.url });
    await s.start();
    expect(s.tools().map((t) => t.name)).toEqual(tools.map((t) => t.name));
    expect(http.listCalls).toBe(5);
    expect(await s.tools()[22]!.execute({ text: "hi" }, ctx())).toBe("tool_22:hi");
    expect(s.status()).toMatchObject({ state: "ready", transport: "http", truncated: false });
  });

  it("stops at maxTools and says the list was truncated", async () => {
    const http = await server(
      Array.from({ length: 12 }, (_, i) => textTool(`t${i}`)),
      5,
    );
    const s = source({ name: "big", url: new URL(http.url) }, { maxTools: 7 });
    await s.start();
    expect(s.tools()).toHaveLength(7);
    expect(s.status().truncated).toBe(true);
  });

  it("maps names outside the tool-name rule and calls with the original", async () => {
    const seen: string[] = [];
    const record = (name: string) =>
      textTool(name, `${name} tool`, () => {
        seen.push(name);
        return { content: [{ type: "text", text: "ok" }] };
      });
    const http = await server([record("files/read"), record("files read"), record("files_read"), record("résumé:get"), record("a".repeat(200))]);
    const s = source({ name: "odd", url: http.url });
    await s.start();
    const names = s.tools().map((t) => t.name);
    expect(names).toEqual(["files_read_3", "files_read_2", "files_read", "r_sum__get", "a".repeat(128)]);
    for (const def of s.tools()) await def.execute({}, ctx());
    expect(seen).toEqual(["files/read", "files read", "files_read", "résumé:get", "a".repeat(200)]);
  });

  it("re-lists on notifications/tools/list_changed and tells listeners; the catalog rebuilds", async () => {
    const http = await server([textTool("first")]);
    const s = source({ name: "live", url: http.url }, { listChangedDebounceMs: 10, minRelistIntervalMs: 0 });
    const catalog = new Catalog([s], () => createToolAjv());
    await catalog.start();
    expect(s.tools().map((t) => t.name)).toEqual(["first"]);
    const version = catalog.version;
    let changes = 0;
    s.onChange(() => changes++);
    const changed = nextChange((l) => s.onChange(l));
    http.tools.push(textTool("second"));
    await http.notifyToolsChanged();
    await changed;
    expect(s.tools().map((t) => t.name)).toEqual(["first", "second"]);
    expect(catalog.version).toBeGreaterThan(version);
    expect(catalog.get("mcp:live:second")?.source).toBe("mcp");
    expect(await s.tools()[1]!.execute({ text: "x" }, ctx())).toBe("second:x");

    // A removed tool: its old definition now fails TOOL_UNAVAILABLE instead of reaching the server.
    const removed = s.tools()[0]!;
    const again = nextChange((l) => s.onChange(l));
    http.tools.splice(0, 1);
    await http.notifyToolsChanged();
    await again;
    expect(s.tools().map((t) => t.name)).toEqual(["second"]);
    await expect(removed.execute({}, ctx("mcp:live:first"))).rejects.toMatchObject({
      code: "TOOL_UNAVAILABLE",
      message: expect.stringContaining("no longer offers"),
    });

    // A notification that changes nothing is not a change.
    const before = changes;
    const lists = http.listCalls;
    await http.notifyToolsChanged();
    await waitFor(() => http.listCalls > lists, "a re-list");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(changes).toBe(before);
  });

  it("a server that dies: in-flight and later calls fail TOOL_UNAVAILABLE, tools() empties, listeners hear it; start() reconnects when it is back", async () => {
    let release: (() => void) | undefined;
    const slow = textTool(
      "slow",
      "waits",
      (_args, signal) =>
        new Promise((resolve) => {
          release = () => resolve({ content: [{ type: "text", text: "late" }] });
          signal.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "aborted" }] }));
        }),
    );
    const http = await server([textTool("echo"), slow]);
    const s = source({ name: "web", url: http.url }, { healthCheckTimeoutMs: 1_000 });
    await s.start();
    const [echo, slowDef] = s.tools();
    const gone = nextChange((l) => s.onChange(l));
    const inFlight = slowDef!.execute({}, ctx("mcp:web:slow"));
    await waitFor(() => release, "the slow call to reach the server");

    await http.kill();
    await expect(inFlight).rejects.toMatchObject({ code: "TOOL_UNAVAILABLE", message: expect.stringContaining('MCP server "web" stopped answering') });
    await gone;
    expect(s.tools()).toEqual([]);
    expect(s.unavailableReason()).toMatch(/^MCP server "web" stopped answering \(.*ECONNREFUSED/);
    await expect(echo!.execute({ text: "x" }, ctx("mcp:web:echo"))).rejects.toMatchObject({ code: "TOOL_UNAVAILABLE" });

    // Down: start() rejects clearly, and the source stays unavailable.
    await expect(s.start()).rejects.toThrow(new RegExp(`MCP server "web" \\(http://127.0.0.1:${http.port}/mcp\\) could not start: .*ECONNREFUSED`));
    expect(s.unavailableReason()).toBe('MCP server "web" is down (could not connect)');

    const back = nextChange((l) => s.onChange(l));
    await http.revive();
    await s.start();
    await back;
    expect(s.tools().map((t) => t.name)).toEqual(["echo", "slow"]);
    expect(await echo!.execute({ text: "again" }, ctx("mcp:web:echo"))).toBe("echo:again");
  });

  it("a server down at start rejects start() with a clear message", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const s = source({ name: "down", url: `http://127.0.0.1:${port}/mcp?token=secret`, headers: { Authorization: "Bearer secret" } });
    const error = await s.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(new RegExp(`^MCP server "down" \\(http://127.0.0.1:${port}/mcp\\) could not start: fetch failed \\(ECONNREFUSED`));
    expect(error?.message).not.toContain("secret");
    expect(s.tools()).toEqual([]);
    expect(s.unavailableReason()).toMatch(/is down/);
  });

  it("a server that accepts but never answers is bounded by startupTimeoutMs", async () => {
    const sockets = new Set<import("node:net").Socket>();
    const hang = createServer(() => {});
    hang.on("connection", (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hang.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hang.close(resolve));
    });
    const s = source({ name: "hang", url: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/mcp` }, { startupTimeoutMs: 300 });
    // The server never answers: only the start-up timeout can end the try, and its message says so.
    await expect(s.start()).rejects.toThrow(/did not connect and list its tools within 300 ms \(startupTimeoutMs\)/);
  });

  it("a call that the server answers with a JSON-RPC error is TOOL_FAILED, and the source stays up", async () => {
    const http = await server([
      textTool("boom", "throws", () => {
        throw new Error("kaboom");
      }),
    ]);
    const s = source({ name: "err", url: http.url });
    await s.start();
    await expect(s.tools()[0]!.execute({}, ctx())).rejects.toMatchObject({ code: "TOOL_FAILED", message: expect.stringContaining("kaboom") });
    expect(s.status().state).toBe("ready");
  });
});
