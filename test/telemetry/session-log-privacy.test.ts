/**
 * Issue 19 row 13: the session log holds who ran what, so it is created 0600, and it records
 * what users searched for only when the config asks (`sessionLog: { file, recordQueries: true }`),
 * as OpenTelemetry does. A real gateway over loopback HTTP in front of the scripted provider,
 * in tools mode, where the provider searches with the user's words.
 */
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginTools } from "../../src/catalog/sources.js";
import { syntheticTools } from "../../src/demo/synthetic-catalog.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway } from "../../src/gateway/gateway-server.js";
import { startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";
import type { SessionEvent } from "../../src/telemetry/types.js";
import { postJson } from "../e2e/processes.js";

const catalog = syntheticTools(50).map((t) => t.definition);
const INPUT = "find the zanzibar weather forecast for my trip";

let provider: MockProvider;
beforeAll(async () => {
  provider = await startMockProvider();
});
afterAll(async () => {
  await provider.close();
});

/** One turn through a gateway whose config has this `sessionLog`; the log's lines and mode after. */
async function turnWith(sessionLog: unknown, file: string): Promise<{ text: string; search: Record<string, unknown>; mode: number }> {
  const config = resolveServerConfig(
    { tools: { toolSearch: { mode: "tools" } }, provider: { baseURL: provider.url, timeoutMs: 10_000 }, gateway: { port: 0 }, sessionLog },
    path.dirname(file),
  );
  const gateway = await startGateway(config, { sources: [pluginTools("acme", catalog)] });
  try {
    const answer = await postJson(`${gateway.url}/v1/runs`, { sessionId: "private", input: INPUT });
    expect(answer.status).toBe(200);
  } finally {
    await gateway.close();
  }
  const text = readFileSync(file, "utf8");
  const events = text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as SessionEvent);
  const search = events.find((e) => e.type === "search") as unknown as Record<string, unknown>;
  expect(search).toBeDefined();
  return { text, search, mode: statSync(file).mode & 0o777 };
}

describe("the JSONL session log", () => {
  it("is created 0600 and, by default, records each query's size, not its text", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-privacy-"));
    const { text, search, mode } = await turnWith("session.jsonl", path.join(dir, "session.jsonl"));
    expect(mode).toBe(0o600);
    expect(text).not.toContain("zanzibar");
    expect(search).not.toHaveProperty("queries");
    expect(search).toMatchObject({ queryChars: [INPUT.length], queryTerms: [INPUT.split(" ").length], via: "tool_call" });
  });

  it("records the query text with sessionLog.recordQueries: true", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-privacy-"));
    const { search, mode } = await turnWith({ file: "queries.jsonl", recordQueries: true }, path.join(dir, "queries.jsonl"));
    expect(mode).toBe(0o600);
    expect(search).toMatchObject({ queries: [INPUT] });
  });

  it("leaves an existing file's mode as it is, and warns when others may read it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-privacy-"));
    const file = path.join(dir, "shared.jsonl");
    writeFileSync(file, "");
    chmodSync(file, 0o640);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const { mode } = await turnWith(file, file);
      expect(mode).toBe(0o640);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([expect.stringMatching(/shared\.jsonl is mode 0640: other users may read it/)]);
  });

  it("a config sessionLog object with an unknown key is a config error", () => {
    expect(() => resolveServerConfig({ sessionLog: { file: "x.jsonl", queries: true } }, process.cwd())).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID" }),
    );
  });
});
