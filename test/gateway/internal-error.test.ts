/**
 * Issue 23 on the gateway face: a fault of our own during a turn's tool call reaches the model
 * as INTERNAL (never TOOL_FAILED, never its detail), and a tool's own throw as TOOL_FAILED. The
 * gateway and the scripted provider are real, in-process, on loopback; a fault of ours is made by
 * making one of the engine's methods throw, since no input can cause one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pluginTools } from "../../src/catalog/sources.js";
import { RunDispatcher } from "../../src/dispatch/run-dispatcher.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import { postJson } from "../e2e/processes.js";
import { RESULT_TOOLS } from "../support/result-tools.js";

let provider: MockProvider;
let gateway: Gateway;
beforeAll(async () => {
  provider = await startMockProvider();
  const config = resolveServerConfig(
    { provider: { baseURL: provider.url, timeoutMs: 5_000 }, gateway: { port: 0 }, tools: { toolSearch: { mode: "tools" } } },
    process.cwd(),
  );
  gateway = await startGateway(config, { sources: [pluginTools("t", RESULT_TOOLS)] });
});
afterAll(async () => {
  await gateway.close();
  await provider.close();
});
afterEach(() => vi.restoreAllMocks());

/** The tool messages the model was sent during the requests after `mark`. */
function toolMessages(mark: number): string[] {
  return provider
    .requestsSince(mark)
    .flatMap((request) => (request.api === "chat" ? request.body.messages.filter((m) => m.role === "tool").map((m) => String(m.content)) : []));
}

describe("gateway: a fault of ours in a turn's tool call", () => {
  it("reaches the model as INTERNAL without its detail; the turn still answers", async () => {
    vi.spyOn(RunDispatcher.prototype, "search").mockImplementation(() => {
      throw new TypeError("secret detail");
    });
    const mark = provider.received();
    const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: "internal", input: "throws plainly" });
    expect(res.status).toBe(200);
    const messages = toolMessages(mark);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.some((m) => m.includes('"INTERNAL"'))).toBe(true);
    expect(messages.join("\n")).not.toMatch(/secret detail|TOOL_FAILED/);
  });

  it("a tool's own throw reaches the model as TOOL_FAILED", async () => {
    const mark = provider.received();
    const res = await postJson(`${gateway.url}/v1/runs`, { sessionId: "tool", input: "throws_plainly" });
    expect(res.status).toBe(200);
    const messages = toolMessages(mark).join("\n");
    expect(messages).toContain("TOOL_FAILED");
    expect(messages).not.toContain("INTERNAL");
  });
});
