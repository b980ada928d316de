/**
 * Bodies that try to leave the vm context for the child's host realm (where `process` lives):
 * through constructors, thrown errors, stack traces, bridge values and errors, getters the host
 * might run, dynamic import, code generation from strings and WebAssembly. Each must fail, and
 * no value the body can reach may come from another realm.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePool, type SandboxPool } from "../../src/sandbox/index.js";
import { fakeBridge, poolProcesses } from "../sandbox/helpers.js";
import { BODY_PRELUDE, expectParentUnchanged, snapshotParent, type ParentSnapshot } from "./guard.js";

const RUN = { timeoutMs: 5000 };

describe("escapes from the body's realm", () => {
  let pool: SandboxPool;
  let before: ParentSnapshot;
  beforeAll(async () => {
    before = snapshotParent();
    pool = await createCodePool({ prefork: 2 });
  });
  afterAll(async () => {
    await pool.close();
    expect(poolProcesses(pool)).toEqual([]);
    expectParentUnchanged(before);
  });

  async function run(body: string) {
    return pool.run(BODY_PRELUDE + body, fakeBridge(), RUN);
  }

  it("sees no host globals", async () => {
    const result = await run(`
      return ["process", "require", "module", "Buffer", "setTimeout", "setImmediate", "queueMicrotask", "fetch",
              "WebSocket", "global", "structuredClone", "performance", "SharedWorker"].filter((n) => typeof globalThis[n] !== "undefined");`);
    expect(result).toMatchObject({ ok: true, value: [] });
  });

  it.each([
    ["this.constructor.constructor", `return this.constructor.constructor("return process")();`],
    ["globalThis.constructor", `return globalThis.constructor.constructor("return process")();`],
    ["openclaw", `return openclaw.constructor.constructor("return process")();`],
    ["a bridge function", `return openclaw.tools.call.constructor("return process")();`],
    ["console.log", `return console.log.constructor("return process")();`],
    ["an async function's constructor", `return (async () => {}).constructor("return process")();`],
    ["a generator's constructor", `return (function* () {}).constructor("return process")();`],
    ["eval", `return eval("process");`],
    ["indirect eval", `return (0, eval)("process");`],
    ["Function", `return Function("return process")();`],
    ["setTimeout with a string", `return setTimeout("1");`],
  ])("cannot reach process through %s", async (_route, body) => {
    const result = await run(body);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe("CODE_THREW");
    expect(!result.ok && result.error.message).toMatch(/EvalError: Code generation from strings disallowed|ReferenceError/);
  });

  it("cannot compile WebAssembly", async () => {
    const body = `
      const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
      const out = [];
      try { new WebAssembly.Module(bytes); out.push("module"); } catch (e) { out.push(e.constructor === WebAssembly.CompileError); }
      try { await WebAssembly.compile(bytes); out.push("compile"); } catch (e) { out.push(foreign(e)); }
      return out;`;
    expect(await run(body)).toMatchObject({ ok: true, value: [true, false] });
  });

  it("gets an error of its own realm from import()", async () => {
    const body = `
      const out = [];
      for (const spec of ["fs", "node:child_process", "data:text/javascript,export default 1"]) {
        try { await import(spec); out.push("imported " + spec); } catch (e) { out.push([foreign(e), grab(e) === undefined, e.message]); }
      }
      return out;`;
    const result = await run(body);
    expect(result.ok).toBe(true);
    for (const entry of (result.ok ? result.value : []) as unknown[]) {
      expect(entry).toEqual([false, true, "import() is not available in code mode; use openclaw.tools.*"]);
    }
  });

  it("gets only values of its own realm from the bridge: results, errors, and their nested objects", async () => {
    const body = `
      const seen = [];
      const walk = (v, depth) => {
        if (v === null || typeof v !== "object" || depth > 5) return;
        seen.push(v);
        for (const k of Object.keys(v)) walk(v[k], depth + 1);
      };
      walk(await openclaw.tools.search("weather"), 0);
      walk(await openclaw.tools.describe("core:weather"), 0);
      walk(await openclaw.tools.call("core:weather", { city: "Oslo" }), 0);
      const errors = [];
      for (const id of ["plugin:mail:send", "core:crash", "core:nope"]) {
        try { await openclaw.tools.call(id, {}); } catch (e) { errors.push(e); }
      }
      try { await openclaw.tools.search(42); } catch (e) { errors.push(e); }
      const values = [...seen, ...errors, ...errors.map((e) => Object.getPrototypeOf(e)), openclaw, openclaw.tools, console];
      return {
        count: values.length,
        foreign: values.filter(foreign).length,
        escaped: values.filter((v) => grab(v) !== undefined).length,
        errorsAreErrors: errors.every((e) => e instanceof Error && typeof e.code === "string"),
      };`;
    const result = await run(body);
    expect(result).toMatchObject({ ok: true, value: { foreign: 0, escaped: 0, errorsAreErrors: true } });
    expect(result.ok && (result.value as { count: number }).count).toBeGreaterThan(10);
  });

  it("finds no host function or receiver in stack traces, wherever the host is below it on the stack", async () => {
    // Error.prepareStackTrace sees CallSites for every frame, host frames included. Capture them at
    // every point where host code is beneath the body: the synchronous start, a continuation after
    // a bridge reply, a thenable getter run while the host delivers a bridge result, a getter run
    // while the bridge serialises arguments, a toJSON run while the result is serialised, and a
    // console argument.
    const body = `
      const found = { sites: 0, fns: [], thisValues: [], traces: [], callers: [] };
      Error.prepareStackTrace = (error, sites) => {
        found.traces.push(sites);
        for (const site of sites) {
          found.sites++;
          const fn = site.getFunction(); if (fn !== undefined) found.fns.push(fn);
          const self = site.getThis(); if (self !== undefined) found.thisValues.push(self);
        }
        return "trace";
      };
      function capture() { new Error("probe").stack; }
      function callerOf() { return callerOf.caller; }
      capture();
      await openclaw.tools.search("weather");
      capture();
      Object.defineProperty(Object.prototype, "then", { configurable: true, get() { capture(); found.callers.push(callerOf()); return undefined; } });
      await openclaw.tools.describe("core:weather");
      delete Object.prototype.then;
      await openclaw.tools.call("core:weather", { get city() { capture(); found.callers.push(callerOf()); return "Rome"; } });
      console.log({ toJSON() { capture(); return "logged"; } });
      const all = [...found.fns, ...found.thisValues, ...found.traces, ...found.traces.flat(), ...found.callers.filter(Boolean)];
      return {
        toJSON() {
          capture();
          return {
            sites: found.sites,
            fns: found.fns.length,
            foreign: all.filter(foreign).length,
            escaped: all.filter((v) => grab(v) !== undefined).length,
          };
        },
      };`;
    const result = await run(body);
    expect(result).toMatchObject({ ok: true, value: { foreign: 0, escaped: 0 } });
    expect(result.ok && (result.value as { sites: number }).sites).toBeGreaterThan(10);
    expect(result.logs).toEqual([{ level: "log", message: '"logged"' }]);
  });

  it("cannot catch a host error by overflowing the stack into the bridge", async () => {
    const body = `
      const caught = [];
      function deep() {
        try { deep(); }
        catch (e) {
          caught.push(e);
          try { openclaw.tools.search("weather").catch((err) => caught.push(err)); } catch (e2) { caught.push(e2); }
        }
      }
      deep();
      await openclaw.tools.search("weather");
      return { n: caught.length, foreign: caught.filter(foreign).length, escaped: caught.filter((v) => grab(v) !== undefined).length };`;
    const result = await run(body);
    expect(result).toMatchObject({ ok: true, value: { foreign: 0, escaped: 0 } });
  });

  it("cannot use Symbol.species or a hijacked Promise to reach the bridge's host side", async () => {
    const body = `
      const grabbed = [];
      class Spy extends Promise {
        constructor(executor) { super((res, rej) => { grabbed.push(executor, res, rej); executor(res, rej); }); }
        static get [Symbol.species]() { return Spy; }
      }
      Promise.prototype.constructor = Spy;
      globalThis.Promise = Spy;
      const orig = Promise.prototype.then;
      const r = await openclaw.tools.search("weather");
      return { ok: Array.isArray(r), foreign: grabbed.filter(foreign).length, escaped: grabbed.filter((v) => grab(v) !== undefined).length };`;
    const result = await run(body);
    expect(result).toMatchObject({ ok: true, value: { ok: true, foreign: 0, escaped: 0 } });
  });

  it("cannot make the host read its values: inspect hooks on unhandled rejections never run", async () => {
    const body = `
      const calls = [];
      const evil = new Error("x");
      evil[Symbol.for("nodejs.util.inspect.custom")] = function (depth, options, inspect) { calls.push(options, inspect); return "x"; };
      Object.defineProperty(evil, "message", { get() { calls.push("message read"); return "x"; } });
      Promise.reject(evil);                  // never handled: dropped, never formatted by the host
      await openclaw.tools.search("weather");
      await openclaw.tools.search("weather");
      return calls.length;`;
    expect(await run(body)).toMatchObject({ ok: true, value: 0 });
  });

  it("reports a thrown value only through strings read inside its realm", async () => {
    const body = `
      const evil = new Error("x");
      function callerOf() { return callerOf.caller; }
      const callers = [];
      Object.defineProperty(evil, "stack", { get() { callers.push(callerOf()); return "Error: x\\n    at code.js:1:1\\n    at host (node:internal/x:1:1)"; } });
      throw evil;`;
    const result = await run(body);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_THREW", message: "Error: x", stack: "at code.js:1:1" } });
  });

  it("reports an exception thrown outside the await chain (FinalizationRegistry) as CODE_THREW", async (ctx) => {
    const body = `
      new FinalizationRegistry(() => { throw new RangeError("from cleanup"); }).register({}, 1);
      for (let i = 0; i < 10; i++) {
        const junk = [];
        for (let j = 0; j < 30; j++) junk.push(new Array(100000).fill(i));
        await openclaw.tools.search("weather");
      }
      return "no cleanup ran";`;
    const result = await run(body);
    // GC timing is the engine's: if no cleanup ran, there is nothing to check.
    if (result.ok) ctx.skip("no FinalizationRegistry cleanup ran during the body (the garbage collector did not run it)");
    expect(!result.ok && result.error).toMatchObject({ code: "CODE_THREW", message: "Uncaught outside the body's await chain: RangeError: from cleanup" });
  });

  it("can break only its own realm: a body that poisons its intrinsics still gets a clean run next time", async () => {
    const poison = `
      JSON.stringify = () => { throw new Error("poisoned"); };
      JSON.parse = () => ({ poisoned: true });
      Object.defineProperty = () => { throw new Error("poisoned"); };
      Array.prototype.push = () => { throw new Error("poisoned"); };
      Error = function () { return { fake: true }; };
      const r = await openclaw.tools.describe("core:weather");
      console.log("still", r.id);
      return r.id;`;
    expect(await run(poison)).toMatchObject({ ok: true, value: "core:weather", logs: [{ level: "log", message: "still core:weather" }] });
    expect(await run("return typeof JSON.stringify({ a: 1 });")).toMatchObject({ ok: true, value: "string" });
  });
});
