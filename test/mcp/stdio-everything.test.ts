/** The reference "everything" server, spawned over stdio: list, call, errors, death, reconnect, close. */
import { afterEach, describe, expect, it } from "vitest";
import { ToolSearchError } from "../../src/errors.js";
import { mcpServer, type McpServerSource } from "../../src/mcp/index.js";
import { childPids, everythingConfig, isRunning, nextChange, toolContext, waitFor } from "./helpers.js";

const opened: McpServerSource[] = [];
function source(...args: Parameters<typeof mcpServer>): McpServerSource {
  const s = mcpServer(...args);
  opened.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function tool(s: McpServerSource, name: string) {
  const def = s.tools().find((t) => t.name === name);
  if (!def)
    throw new Error(
      `no tool ${name} in ${s
        .tools()
        .map((t) => t.name)
        .join(", ")}`,
    );
  return def;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolSearchError) return error.code;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("mcpServer over stdio (server-everything)", () => {
  it("lists the server's tools as definitions and calls them with a real AbortSignal", async () => {
    const s = source(everythingConfig());
    expect(s.source).toBe("mcp");
    expect(s.toolset).toBe("everything");
    await s.start();
    const names = s.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content", "trigger-long-running-operation"]));
    const echo = tool(s, "echo");
    expect(echo.description).toBe("Echoes back the input string");
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });

    const controller = new AbortController();
    expect(await echo.execute({ message: "hi" }, toolContext("mcp:everything:echo", controller.signal))).toBe("Echo: hi");
    expect(await tool(s, "get-sum").execute({ a: 2, b: 3 }, toolContext("mcp:everything:get-sum"))).toBe("The sum of 2 and 3 is 5.");
    const structured = await tool(s, "get-structured-content").execute({ location: "Chicago" }, toolContext("mcp:everything:get-structured-content"));
    expect(structured).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
    expect(tool(s, "get-structured-content").outputSchema).toMatchObject({ type: "object" });
    expect(s.status()).toMatchObject({ state: "ready", transport: "stdio", pid: expect.any(Number) });
    expect(s.unavailableReason()).toBeUndefined();
  });

  it("turns an isError result into TOOL_FAILED carrying the server's text", async () => {
    const s = source(everythingConfig());
    await s.start();
    // The SDK's McpServer answers arguments that fail its own validation with isError: true.
    const failure = tool(s, "get-sum").execute({ a: "two", b: 3 }, toolContext("mcp:everything:get-sum"));
    await expect(failure).rejects.toMatchObject({ code: "TOOL_FAILED", message: expect.stringMatching(/Input validation error|invalid/i) });
  });

  it("aborting the signal ends a long-running call", async () => {
    const s = source(everythingConfig());
    await s.start();
    const controller = new AbortController();
    const reason = new Error("run ended");
    const call = tool(s, "trigger-long-running-operation").execute({ duration: 30, steps: 3 }, toolContext("mcp:everything:x", controller.signal));
    setTimeout(() => controller.abort(reason), 200);
    // The operation runs 30 s and then succeeds: rejecting with the abort's reason is the proof it was cut short.
    await expect(call).rejects.toBe(reason);
    // The connection is still good afterwards.
    expect(await tool(s, "echo").execute({ message: "again" }, toolContext("mcp:everything:echo"))).toBe("Echo: again");
  });

  it("a server killed mid-run: in-flight and later calls fail TOOL_UNAVAILABLE, tools() empties, listeners hear it; start() reconnects", async () => {
    const s = source(everythingConfig());
    await s.start();
    const pid = s.status().pid!;
    const changed = nextChange((l) => s.onChange(l));
    const inFlight = Promise.resolve(
      tool(s, "trigger-long-running-operation").execute({ duration: 30, steps: 3 }, toolContext("mcp:everything:trigger-long-running-operation")),
    );
    const echo = tool(s, "echo");
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid, "SIGKILL");

    expect(await codeOf(inFlight)).toBe("TOOL_UNAVAILABLE");
    await changed;
    expect(s.tools()).toEqual([]);
    expect(s.unavailableReason()).toBe('MCP server "everything" exited');
    await expect(echo.execute({ message: "x" }, toolContext("mcp:everything:echo"))).rejects.toMatchObject({
      code: "TOOL_UNAVAILABLE",
      message: expect.stringContaining('MCP server "everything" exited'),
    });

    const back = nextChange((l) => s.onChange(l));
    await s.start();
    await back;
    expect(s.status().state).toBe("ready");
    expect(s.status().pid).not.toBe(pid);
    // A definition held from before the crash works again: it calls through the live connection.
    expect(await echo.execute({ message: "back" }, toolContext("mcp:everything:echo"))).toBe("Echo: back");
  });

  it("a command that cannot start rejects start() with a clear message, and is unavailable", async () => {
    // Not tried again within the test: a retry's child would be among childPids() below.
    const noRetry = { retryMinDelayMs: 600_000, retryMaxDelayMs: 600_000 };
    const missing = source({ name: "missing", command: "/nonexistent/mcp-server" }, noRetry);
    await expect(missing.start()).rejects.toThrow(/MCP server "missing" \(stdio: mcp-server\) could not start: .*ENOENT/);
    expect(missing.tools()).toEqual([]);
    expect(missing.unavailableReason()).toMatch(/MCP server "missing" is down/);
    expect(missing.status()).toMatchObject({ state: "failed", failures: 1, retryInMs: expect.any(Number) });

    const crashing = source({ name: "crashing", command: process.execPath, args: ["-e", "console.error('boom: no config'); process.exit(3)"] }, noRetry);
    await expect(crashing.start()).rejects.toThrow(/MCP server "crashing" \(stdio: node\) could not start: .*its stderr ends: boom: no config/);

    const silent = source(
      { name: "silent", command: process.execPath, args: ["-e", "setTimeout(() => {}, 60000)"] },
      { startupTimeoutMs: 300, killGraceMs: 100, ...noRetry },
    );
    // The child sleeps 60 s without a word: only the start-up timeout ends the try, and the child is stopped.
    await expect(silent.start()).rejects.toThrow('MCP server "silent" (stdio: node) did not connect and list its tools within 300 ms (startupTimeoutMs)');
    expect(childPids()).toEqual([]);
  });

  it("start() stops waiting after connectTimeoutMs; the start goes on in the background", async () => {
    const slow = source({ name: "slow", command: process.execPath, args: ["-e", "setTimeout(() => {}, 60000)"] }, { connectTimeoutMs: 200, killGraceMs: 100 });
    const events: string[] = [];
    slow.onEvent((event) => events.push(event.kind));
    await expect(slow.start()).rejects.toThrow(/MCP server "slow" \(stdio: node\) is still connecting after 200 ms \(connectTimeoutMs\); it keeps starting/);
    expect(slow.status()).toMatchObject({ state: "connecting", pid: expect.any(Number) });
    expect(isRunning(slow.status().pid!)).toBe(true);
    expect(events).toEqual(["connecting", "slow"]);
    await slow.close();
    expect(childPids()).toEqual([]);
  });

  it("close() ends the child and leaves nothing running", async () => {
    const before = childPids();
    const a = source(everythingConfig("a"));
    const b = source(everythingConfig("b"), { killGraceMs: 200 });
    await Promise.all([a.start(), b.start()]);
    const pids = [a.status().pid!, b.status().pid!];
    expect(childPids()).toEqual(expect.arrayContaining(pids));
    await Promise.all([a.close(), b.close()]);
    expect(pids.filter(isRunning)).toEqual([]);
    expect(childPids()).toEqual(before.filter(isRunning));
    expect(a.tools()).toEqual([]);
    await expect(a.start()).rejects.toThrow(/is closed/);
    await a.close(); // idempotent
  });

  it("close() during start() aborts it and leaves no child", async () => {
    const s = source(everythingConfig());
    const starting = s.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await s.close();
    await expect(starting).rejects.toThrow(/closed while connecting/);
    await waitFor(() => childPids().length === 0, "no child processes", 3_000);
  });
});
