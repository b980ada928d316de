/**
 * A server cannot flood the shared parent: list_changed storms cost a bounded number of
 * re-lists, and answers over maxMessageBytes fail at once instead of being parsed. How long a
 * flood holds the event loop is a timing goal: bench/stall/mcp-flood.ts (figure
 * `stall/mcp-flood/loop-p99÷idle`), not an assertion here.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createToolSearch, type ToolSearchEngine } from "../../src/index.js";
import type { McpServerSource } from "../../src/mcp/index.js";
import { answeredId, BoundedLineBuffer, boundedMcpFetch, MessageTooLargeError } from "../../src/mcp/message-limit.js";
import { childPids, closedAfterEach, isRunning, nextChange, textTool, toolContext, waitFor } from "./helpers.js";

const { cleanup, server, source } = closedAfterEach();
afterEach(() => {
  vi.useRealTimers();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LIMIT = 65_536;

/**
 * A stdio server built with the SDK, run by this Node: tools echo, huge (answers `bigBytes`
 * of text) and grow (adds a tool whose description is `bigBytes` long, then sends list_changed).
 */
function bigStdioServer(name: string, bigBytes: number) {
  const code = `
    import { Server } from "@modelcontextprotocol/sdk/server/index.js";
    import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
    import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
    const big = "x".repeat(Number(process.argv[1]));
    const tool = (name, description = name + " tool") => ({ name, description, inputSchema: { type: "object" } });
    let grown = false;
    const server = new Server({ name: "big", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [tool("echo"), tool("huge"), tool("grow"), ...(grown ? [tool("bloated", big)] : [])],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const { name } = request.params;
      if (name === "huge") return { content: [{ type: "text", text: big }] };
      if (name === "grow") {
        grown = true;
        await server.sendToolListChanged();
        return { content: [{ type: "text", text: "grown" }] };
      }
      return { content: [{ type: "text", text: "echo:" + String(request.params.arguments?.text ?? "") }] };
    });
    await server.connect(new StdioServerTransport());
  `;
  return { name, command: process.execPath, args: ["--input-type=module", "-e", code, String(bigBytes)], cwd: process.cwd() };
}

function toolNamed(s: McpServerSource, name: string) {
  const def = s.tools().find((t) => t.name === name);
  if (!def) throw new Error(`no tool ${name}`);
  return def;
}

describe("a server flooding tools/list_changed", () => {
  it("costs at most one re-list per minRelistIntervalMs, ends on the final list, and sessions are served meanwhile", { timeout: 90_000 }, async () => {
    const tools = Array.from({ length: 2_000 }, (_, i) => textTool(`tool_${i}`, `Tool number ${i}, revision 0: does thing ${i % 37}.`));
    const http = await server(tools, 5_000);
    const interval = 300;
    const s = source({ name: "flood", url: http.url }, { minRelistIntervalMs: interval, listChangedDebounceMs: 10 });
    const engine: ToolSearchEngine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [s] });
    cleanup.push(() => engine.close());
    expect(http.listCalls).toBe(1);

    const started = Date.now();
    const revisions = 200;
    let runs = 0;
    for (let revision = 1; revision <= revisions; revision += 1) {
      const i = revision % tools.length;
      tools[i] = textTool(`tool_${i}`, `Tool number ${i}, revision ${revision}.`);
      await http.notifyToolsChanged();
      // Sessions keep being served meanwhile.
      if (revision % 20 === 0) {
        const run = await engine.prepareRun({ sessionId: "s" });
        await run.search("tool number");
        await run.end();
        runs += 1;
      }
      await sleep(5);
    }
    tools.push(textTool("final_marker", "The last tool the server added"));
    await http.notifyToolsChanged();
    await waitFor(() => s.tools().some((t) => t.name === "final_marker"), "the final list", 5_000);
    // The re-list bound is a rate (one per interval), so the time the storm took sets how many were allowed.
    const elapsed = Date.now() - started;

    // Hundreds of notifications, a handful of re-lists: one per interval, plus the one that was pending.
    expect(elapsed).toBeGreaterThan(revisions * 5);
    expect(runs).toBe(revisions / 20);
    const relists = http.listCalls - 1;
    expect(relists).toBeGreaterThanOrEqual(2);
    expect(relists).toBeLessThanOrEqual(Math.ceil(elapsed / interval) + 2);

    const run = await engine.prepareRun({ sessionId: "s" });
    expect(engine.catalogStatus().size).toBe(2_001);
    expect((await run.search("last tool the server added"))[0]?.id).toBe("mcp:flood:final_marker");
    expect((await run.describe(`mcp:flood:tool_${revisions}`)).description).toContain(`revision ${revisions}.`);
    await run.end();
  });

  it("a list that did not change is not a change: no notification, and the same definition objects", async () => {
    const http = await server([textTool("a"), textTool("b")]);
    const s = source({ name: "same", url: http.url }, { minRelistIntervalMs: 0, listChangedDebounceMs: 0 });
    await s.start();
    const before = s.tools();
    let changes = 0;
    s.onChange(() => (changes += 1));
    await http.notifyToolsChanged();
    await waitFor(() => http.listCalls === 2, "a re-list");
    await sleep(50);
    expect(changes).toBe(0);
    expect(s.tools()).toBe(before);

    // One tool changed: only it gets a new definition.
    const changed = nextChange((l) => s.onChange(l));
    http.tools[1] = textTool("b", "b, new description");
    await http.notifyToolsChanged();
    await changed;
    expect(s.tools()[0]).toBe(before[0]);
    expect(s.tools()[1]).not.toBe(before[1]);
    expect(s.tools()[1]!.description).toBe("b, new description");
  });

  it("close() cancels a pending re-list", async () => {
    const http = await server([textTool("a")]);
    const s = source({ name: "closing", url: http.url }, { listChangedDebounceMs: 150 });
    await s.start();
    await http.notifyToolsChanged();
    await sleep(20);
    await s.close();
    await sleep(300);
    expect(http.listCalls).toBe(1);
  });

  it("a pending re-list is dropped when the server goes away; after a reconnect, notifications re-list again", async () => {
    // Fake timers that also run with the clock (shouldAdvanceTime), so the real connections go on:
    // the test jumps past the re-list interval instead of sleeping through it.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], shouldAdvanceTime: true });
    const http = await server([textTool("a")]);
    const s = source({ name: "back", url: http.url }, { minRelistIntervalMs: 1_000, listChangedDebounceMs: 0, healthCheckTimeoutMs: 500 });
    await s.start();
    // Pending, held back by the interval since the listing at connect.
    await http.notifyToolsChanged();
    await sleep(100); // for the notification to reach the client
    expect(http.listCalls).toBe(1);
    await http.kill();
    // The notification stream breaks, the liveness ping fails: gone, and the pending re-list with it.
    await waitFor(() => s.status().state === "gone", "the source to notice");
    await http.revive();
    http.tools.push(textTool("b"));
    await s.start();
    expect(s.tools().map((t) => t.name)).toEqual(["a", "b"]);
    expect(http.listCalls).toBe(2);
    // Past the time the dropped re-list was due: it did not run on the new connection (had it,
    // the re-list below would be the fourth listing, not the third).
    await vi.advanceTimersByTimeAsync(1_200);
    expect(http.listCalls).toBe(2);

    const changed = nextChange((l) => s.onChange(l));
    http.tools.push(textTool("c"));
    await http.notifyToolsChanged();
    await changed;
    expect(s.tools().map((t) => t.name)).toEqual(["a", "b", "c"]);
    expect(http.listCalls).toBe(3);
  });
});

describe("answers over maxMessageBytes", () => {
  it(
    "stdio: an oversized call result fails at once with TOOL_FAILED naming the limit; the server stays usable; a bloated re-list keeps the previous tools",
    { timeout: 10_000 },
    async () => {
      const before = childPids();
      const s = source(bigStdioServer("bigio", 5_000_000), { maxMessageBytes: LIMIT, callTimeoutMs: 60_000, minRelistIntervalMs: 0, listChangedDebounceMs: 0 });
      await s.start();
      const pid = s.status().pid!;

      // callTimeoutMs is 60 s and this test's timeout 10 s: passing means it failed at once.
      await expect(toolNamed(s, "huge").execute({}, toolContext("mcp:bigio:huge"))).rejects.toMatchObject({
        code: "TOOL_FAILED",
        message: `MCP server "bigio" answered the call of "huge" with more than ${LIMIT} bytes (maxMessageBytes); the answer was dropped unread.`,
      });
      expect(await toolNamed(s, "echo").execute({ text: "still here" }, toolContext("mcp:bigio:echo"))).toBe("echo:still here");
      expect(s.status()).toMatchObject({ state: "ready", pid });

      await toolNamed(s, "grow").execute({}, toolContext("mcp:bigio:grow"));
      await waitFor(() => s.status().lastListError, "the re-list to fail");
      expect(s.status().lastListError).toMatch(new RegExp(`larger than maxMessageBytes \\(${LIMIT} bytes\\).*previous list is kept`));
      expect(s.tools().map((t) => t.name)).toEqual(["echo", "huge", "grow"]);
      expect(s.status().state).toBe("ready");

      await s.close();
      expect(isRunning(pid)).toBe(false);
      expect(childPids()).toEqual(before.filter(isRunning));
    },
  );

  it("HTTP (SSE answer): an oversized call result fails at once with TOOL_FAILED naming the limit", { timeout: 10_000 }, async () => {
    const big = "y".repeat(3_000_000);
    const http = await server([textTool("huge", "big answer", () => ({ content: [{ type: "text", text: big }] })), textTool("echo")]);
    const s = source({ name: "bigweb", url: http.url }, { maxMessageBytes: LIMIT, callTimeoutMs: 60_000 });
    await s.start();
    await expect(toolNamed(s, "huge").execute({}, toolContext("mcp:bigweb:huge"))).rejects.toMatchObject({
      code: "TOOL_FAILED",
      message: expect.stringContaining(`more than ${LIMIT} bytes (maxMessageBytes)`),
    });
    expect(await toolNamed(s, "echo").execute({ text: "x" }, toolContext("mcp:bigweb:echo"))).toBe("echo:x");
    expect(s.status().state).toBe("ready");
  });

  it(
    "HTTP: an oversized tools/list page on re-list keeps the previous tools and records lastListError; a later good list is taken",
    { timeout: 10_000 },
    async () => {
      const http = await server([textTool("a"), textTool("b")]);
      const s = source({ name: "bloat", url: http.url }, { maxMessageBytes: LIMIT, minRelistIntervalMs: 0, listChangedDebounceMs: 0 });
      await s.start();
      const before = s.tools();
      http.tools.push(textTool("bloated", "z".repeat(200_000)));
      await http.notifyToolsChanged();
      await waitFor(() => s.status().lastListError, "the re-list to fail");
      expect(s.status().lastListError).toMatch(/larger than maxMessageBytes \(65536 bytes\)/);
      expect(s.tools()).toBe(before);

      http.tools.pop();
      http.tools.push(textTool("c"));
      const changed = nextChange((l) => s.onChange(l));
      await http.notifyToolsChanged();
      await changed;
      expect(s.tools().map((t) => t.name)).toEqual(["a", "b", "c"]);
      expect(s.status().lastListError).toBeUndefined();
    },
  );

  it("maxTools stops paging: no page past the limit is requested", async () => {
    const http = await server(
      Array.from({ length: 50 }, (_, i) => textTool(`t${i}`)),
      10,
    );
    const s = source({ name: "paged", url: http.url }, { maxTools: 15 });
    await s.start();
    expect(s.tools()).toHaveLength(15);
    expect(s.status().truncated).toBe(true);
    expect(http.listCalls).toBe(2);
  });
});

describe("message limit, unit", () => {
  it("finds the id of an oversized answer at either end, never of a request or notification", () => {
    expect(answeredId('{"result":{"content":[{"type":"text","text":"xxxx', 'xxxx"}]},"jsonrpc":"2.0","id":7}\r')).toBe(7);
    expect(answeredId('{"jsonrpc":"2.0","id":"a\\"b","result":{"x":"', 'yyy"}}')).toBe('a"b');
    expect(answeredId('{"method":"notifications/message","params":{"data":"', 'zzz"},"jsonrpc":"2.0"}')).toBeUndefined();
    expect(answeredId('{"method":"sampling/createMessage","params":{"m":"', 'q"},"jsonrpc":"2.0","id":3}')).toBeUndefined();
    // An id-like text inside a nested object is not the answer's id.
    expect(answeredId('{"result":{"items":[', '{"id":5}]},"jsonrpc":"2.0"}')).toBeUndefined();
    expect(answeredId("garbage", "more garbage")).toBeUndefined();
  });

  it("BoundedLineBuffer: messages split across chunks, and an oversized line dropped as it arrives", () => {
    const buffer = new BoundedLineBuffer(65_536);
    const first = JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    buffer.append(Buffer.from(first.slice(0, 10)));
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from(`${first.slice(10)}\n{"result":{"text":"`));
    expect(buffer.readMessage()).toMatchObject({ method: "notifications/tools/list_changed" });
    for (let i = 0; i < 40; i++) buffer.append(Buffer.alloc(10_000, 0x61));
    buffer.append(Buffer.from('"},"jsonrpc":"2.0","id":12}\n{"jsonrpc":"2.0","id":13,"result":{}}\n'));
    expect(buffer.readMessage()).toMatchObject({ id: 12, error: { code: -32_060, data: { limit: 65_536 } } });
    expect(buffer.readMessage()).toMatchObject({ id: 13, result: {} });
    expect(buffer.readMessage()).toBeNull();

    buffer.append(Buffer.alloc(70_000, 0x62));
    buffer.append(Buffer.from("\n"));
    expect(() => buffer.readMessage()).toThrow(MessageTooLargeError);
  });

  it("boundedMcpFetch: a JSON body announced larger than the limit is refused before it is read; SSE is counted per event", async () => {
    const dropped: Array<Array<string | number>> = [];
    const body = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "x" } });
    const json = boundedMcpFetch(
      1_000,
      (ids) => dropped.push(ids),
      async () => new Response("{}".padEnd(5_000), { headers: { "content-type": "application/json", "content-length": "5000" } }),
    );
    await expect(json("http://h/mcp", { method: "POST", body })).rejects.toThrow(MessageTooLargeError);
    expect(dropped).toEqual([[4]]);

    const events = Array.from(
      { length: 50 },
      (_, i) => `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: i } }).padEnd(200)}\n\n`,
    ).join("");
    const sse = boundedMcpFetch(
      1_000,
      (ids) => dropped.push(ids),
      async () => new Response(events, { headers: { "content-type": "text/event-stream" } }),
    );
    expect(await (await sse("http://h/mcp", { method: "POST", body })).text()).toBe(events);

    const huge = `data: ${"x".repeat(600)}\ndata: ${"x".repeat(600)}\n\n`;
    const tooBig = boundedMcpFetch(
      1_000,
      (ids) => dropped.push(ids),
      async () => new Response(huge, { headers: { "content-type": "text/event-stream" } }),
    );
    await expect((await tooBig("http://h/mcp", { method: "POST", body })).text()).rejects.toThrow(MessageTooLargeError);
    expect(dropped).toEqual([[4], [4]]);
  });
});
