/**
 * A server whose calls keep timing out has its circuit breaker opened: its calls fail at once with
 * TOOL_UNAVAILABLE saying when it is tried again, instead of each holding a caller until its
 * timeout; a probe the server answers closes it again.
 */
import { describe, expect, it } from "vitest";
import { ToolSearchError } from "../../src/errors.js";
import { toolContext } from "../mcp/helpers.js";
import { faultSources, waitFor } from "./helpers.js";

const { source } = faultSources();

async function outcome(promise: unknown): Promise<{ code: string; message: string } | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof ToolSearchError) return { code: error.code, message: error.message };
    throw error;
  }
}

describe("the circuit breaker", () => {
  it("opens after breakerTimeouts calls in a row time out, fails calls at once while open, and closes when a probe is answered", async () => {
    const { source: s, events } = source(
      "stuck",
      {},
      { callTimeoutMs: 150, breakerTimeouts: 2, retryMinDelayMs: 400, retryMaxDelayMs: 800, maxConcurrentCalls: 4 },
    );
    await s.start();
    const tool = (name: string) => s.tools().find((t) => t.name === name)!;

    expect(await outcome(tool("hang").execute({}, toolContext("mcp:stuck:hang")))).toMatchObject({ code: "TOOL_TIMEOUT" });
    expect(s.status().breaker).toBe("closed");
    expect(await outcome(tool("hang").execute({}, toolContext("mcp:stuck:hang")))).toMatchObject({ code: "TOOL_TIMEOUT" });
    expect(s.status().breaker).toBe("open");
    expect(events.filter((e) => e.kind === "breaker-open")).toEqual([
      {
        kind: "breaker-open",
        reason: expect.stringMatching(/MCP server "stuck" is not answering \(its last 2 calls timed out\)/),
        retryInMs: expect.any(Number),
      },
    ]);

    // Open: even a tool that would answer fails at once, saying when the server is tried again.
    expect(await outcome(tool("echo").execute({ text: "x" }, toolContext("mcp:stuck:echo")))).toEqual({
      code: "TOOL_UNAVAILABLE",
      message: expect.stringMatching(/its calls fail at once until it is tried again in \d+ s\. Try another tool or try again later\.$/),
    });
    expect(s.unavailableReason()).toMatch(/is not answering/);
    expect(s.problem()).toMatch(/is not answering/);

    // The server answers pings (only its "hang" tool hangs): the probe closes the breaker.
    await waitFor(() => events.some((e) => e.kind === "breaker-closed"), "the probe to close the breaker");
    expect(s.status().breaker).toBe("closed");
    expect(await outcome(tool("echo").execute({ text: "again" }, toolContext("mcp:stuck:echo")))).toBe("ok");
    expect(s.unavailableReason()).toBeUndefined();
  });

  it("calls waiting for a slot when the breaker opens fail at once instead of waiting out their turn", async () => {
    const { source: s } = source("stuck", {}, { callTimeoutMs: 200, breakerTimeouts: 1, retryMinDelayMs: 60_000, retryMaxDelayMs: 60_000 });
    await s.start();
    const tool = (name: string) => s.tools().find((t) => t.name === name)!;
    const first = outcome(tool("hang").execute({}, toolContext("mcp:stuck:hang", undefined, "a")));
    // One slot (stdio's default): these wait behind the hanging call.
    const waiting = [
      outcome(tool("echo").execute({}, toolContext("mcp:stuck:echo", undefined, "b"))),
      outcome(tool("echo").execute({}, toolContext("mcp:stuck:echo", undefined, "c"))),
    ];
    await waitFor(() => s.status().calls.queued === 2, "two calls waiting");
    expect(await first).toMatchObject({ code: "TOOL_TIMEOUT" });
    for (const result of await Promise.all(waiting))
      expect(result).toMatchObject({ code: "TOOL_UNAVAILABLE", message: expect.stringContaining("not answering") });
    expect(s.status().calls).toEqual({ running: 0, queued: 0 });
  });
});
