/** Issue 12: 16 concurrent code-mode bodies in one run print no MaxListenersExceededWarning (every body, call and waiter listens on the run's signal). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type CodePool } from "../../src/index.js";
import { fixtureEngine, parse } from "./helpers.js";

let pool: CodePool;
beforeAll(async () => {
  pool = await createCodePool({ prefork: 2, maxConcurrent: 4 });
});
afterAll(async () => {
  await pool.close();
});

describe("code mode under concurrency", () => {
  it("16 concurrent tool_search_code bodies in one run: all answer, no listener warning", { timeout: 60_000 }, async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    const engine = await fixtureEngine({ codePool: pool }, { ran: [] as string[] });
    try {
      const run = await engine.prepareRun({ sessionId: "many", mode: "code" });
      const body = (i: number) => `const [hit] = await openclaw.tools.search("weather forecast for a city");
         const tool = await openclaw.tools.describe(hit.id);
         const value = await openclaw.tools.call(hit.id, { city: "City${i}", days: 1 });
         return { i: ${i}, id: tool.id, city: value.city };`;
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => run.handleToolCall({ name: "tool_search_code", arguments: JSON.stringify({ code: body(i) }) }).then(parse)),
      );
      answers.forEach((content, i) => expect(content).toMatchObject({ ok: true, value: { i, city: `City${i}` } }));
      await run.end();
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => /MaxListenersExceeded/.test(w))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await engine.close();
    }
  });
});

describe("onAbort (abort-listeners.ts)", () => {
  it("holds one real listener however many callbacks, calls each once, and lets go of the signal when all are released", async () => {
    const { onAbort, abortListenerCount } = await import("../../src/abort-listeners.js");
    const controller = new AbortController();
    const calls: number[] = [];
    const offs = Array.from({ length: 50 }, (_, i) => onAbort(controller.signal, () => calls.push(i)));
    expect(abortListenerCount(controller.signal)).toBe(1);
    offs[3]!();
    offs[3]!();
    controller.abort();
    expect(calls).toHaveLength(49);
    expect(calls).not.toContain(3);
    controller.signal.dispatchEvent(new Event("abort"));
    expect(calls).toHaveLength(49);
    const other = new AbortController();
    const off = onAbort(other.signal, () => calls.push(-1));
    off();
    expect(abortListenerCount(other.signal)).toBe(0);
    other.abort();
    expect(calls).not.toContain(-1);
  });
});
