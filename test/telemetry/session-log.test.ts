/** The session log answers the operator's four questions, survives a crash, and mirrors to diagnostics_channel. */
import { spawnSync } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EVENT_CHANNEL, jsonlSessionLog, type SessionEvent, type ToolSearchEngine } from "../../src/index.js";
import { fixtureEngine } from "../engine/helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

const tmp = () => mkdtempSync(path.join(tmpdir(), "toolsearch-log-"));
const readEvents = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as SessionEvent);

describe("session log", () => {
  it("answers: schemas up front, searches and describes, the final tool and its source", async () => {
    const file = path.join(tmp(), "session.jsonl");
    const log = jsonlSessionLog(file);
    engine = await fixtureEngine({ sessionLog: log });
    const run = await engine.prepareRun({ sessionId: "sess-1" });
    await run.handleToolCall({ name: "tool_search", arguments: '{"query":"create an issue"}' });
    await run.handleToolCall({ name: "tool_describe", arguments: '{"id":"plugin:github:create_issue"}' });
    await run.handleToolCall({ name: "tool_call", arguments: '{"id":"plugin:github:create_issue","args":{"repo":"a/b","title":"t"}}' });
    await run.end();
    await log.close();

    const events = readEvents(file);
    expect(events.map((e) => e.type)).toEqual(["run_start", "search", "describe", "call", "run_end"]);
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set(["sess-1"]));
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([run.runId]));
    expect(events.every((e) => !Number.isNaN(Date.parse(e.time)))).toBe(true);

    const start = events.find((e) => e.type === "run_start");
    const calls = events.filter((e) => e.type === "call");
    // 1. how many schemas did the model see up front
    expect(start).toMatchObject({ mode: "tools", upfront: { schemas: 0, declaredTools: 3 }, upfrontToolIds: [] });
    // 2. how many searches and describes
    expect(events.filter((e) => e.type === "search")).toHaveLength(1);
    expect(events.filter((e) => e.type === "describe")).toHaveLength(1);
    // 3 and 4. which tool was finally called, and its source
    expect(calls.at(-1)).toMatchObject({ id: "plugin:github:create_issue", source: "plugin", ok: true, via: "tool_call" });
    expect(events.at(-1)).toMatchObject({ type: "run_end", telemetry: { counts: { search: 1, describe: 1, call: 1 } } });
  });

  it("keeps every line written before a crash", () => {
    const file = path.join(tmp(), "crash.jsonl");
    const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/src/index.js");
    const script = `
      const { jsonlSessionLog } = await import(${JSON.stringify(dist)});
      const log = jsonlSessionLog(${JSON.stringify(file)});
      for (let i = 0; i < 200; i++) log.write({ type: "search", sessionId: "s", runId: "r", time: new Date().toISOString(), queries: ["q" + i], hits: [], via: "api" });
      process.kill(process.pid, "SIGKILL");`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script]);
    expect(child.signal).toBe("SIGKILL");
    const events = readEvents(file);
    expect(events).toHaveLength(200);
    // No query text by default: its size only.
    expect(events.at(-1)).toMatchObject({ queryChars: [4], queryTerms: [1] });
    expect(events.at(-1)).not.toHaveProperty("queries");
  });

  it("publishes the same events on diagnostics_channel", async () => {
    const seen: SessionEvent[] = [];
    const listener = (message: unknown) => void seen.push(message as SessionEvent);
    diagnostics.subscribe(EVENT_CHANNEL, listener);
    try {
      engine = await fixtureEngine();
      const run = await engine.prepareRun({ sessionId: "dc" });
      await run.call("core:get_weather_forecast", { city: "Paris" });
      await run.end();
    } finally {
      diagnostics.unsubscribe(EVENT_CHANNEL, listener);
    }
    expect(seen.filter((e) => e.sessionId === "dc").map((e) => e.type)).toEqual(["run_start", "call", "run_end"]);
  });
});
