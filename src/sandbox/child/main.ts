/**
 * The child's host side: runs in the child's main realm (which has `process`), never in the
 * body's context. At startup it builds the vm context and the in-context bridge objects
 * (child/realm.ts), pushes one warm-up body through every path, sends `ready`, then waits for one
 * `run` frame. Everything per-body except compiling and calling the body is done before `ready`,
 * so a warm run pays only for the body itself.
 *
 * Rules that keep host objects away from the body:
 * - the only host function the context holds is `post`, which accepts and returns primitives;
 * - the host calls into the context only with primitives or the body function, and never reads
 *   properties of, awaits, or stringifies a value the body produced;
 * - dynamic import() from the body is answered by `importModuleDynamically` with an error made in
 *   the context (without it, Node would reject with a host-realm error);
 * - everything here is strict mode, so a stack-trace CallSite over a host frame yields no
 *   function and no receiver.
 *
 * The parent owns time and the process: this code never exits on its own after `ready` (except
 * when its stdin closes, i.e. the parent is gone) and waits to be SIGKILLed.
 *
 * Serialised with Function.prototype.toString (child/source.ts): self-contained, no imports.
 */
import type { ChildCodec } from "./codec.js";
import type { PostFn, RealmHooks } from "./realm.js";

// The child's CommonJS require: each module is typed where it is used.
// oxlint-disable-next-line typescript/no-explicit-any
type Require = (id: string) => any;
type Failure = { code: string; message: string; stack?: string };

export function childMain(require: Require, codec: ChildCodec, realmSource: string): void {
  "use strict";
  const vm = require("node:vm");
  const V = 1;
  const FILENAME = "code.js";
  const WRAP_HEAD = "(async function () {\n";
  const WRAP_TAIL = "\n})";
  const MAX_TEXT = 4000;
  const WARMUP_BODY = 'const r = await openclaw.tools.describe("warmup"); console.log("w", r); return { r };';
  const fs = require("node:fs");
  const functionToString = Function.prototype.toString;
  const READ_CHUNK = 64 * 1024;

  // warming → waiting → running → done
  const WARMING = -1;
  const WAITING = 0;
  const RUNNING = 1;
  const DONE = 2;
  let state = WARMING;
  let warmupCallId = 0;
  let limits = { resultBytes: 0, logBytes: 0, frameBytes: 0 };

  function withLength(body: Buffer): Buffer {
    const out = Buffer.allocUnsafe(4 + body.length);
    out.writeUInt32BE(body.length, 0);
    body.copy(out, 4);
    return out;
  }

  /**
   * Frames go out with blocking writes to fd 1, never through process.stdout (which would load
   * the net and stream modules and make the pipe non-blocking). A body that logs in a tight loop
   * then waits on the pipe until the parent has read and counted what it sent, instead of piling
   * frames up in memory while the event loop never runs to flush them; a result sent while the
   * body keeps the microtask queue busy still gets out.
   */
  function writeOut(bytes: Buffer): void {
    try {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(1, bytes, offset);
    } catch {
      process.exit(0); // the parent is gone (EPIPE)
    }
  }

  function write(frame: Record<string, unknown>): void {
    writeOut(withLength(codec.encode(frame)));
  }

  function finishWith(error: Failure | null, value?: string): void {
    if (state === WARMING) {
      codec.encode(error === null ? { v: V, type: "result", ok: true, value } : { v: V, type: "result", ok: false, error });
      state = WAITING;
      afterWarmup();
      return;
    }
    if (state === DONE) return;
    state = DONE;
    if (error === null) write({ v: V, type: "result", ok: true, value: value as string });
    else write({ v: V, type: "result", ok: false, error });
  }

  function limit(message: string): number {
    finishWith({ code: "CODE_LIMIT", message });
    return 2;
  }

  function send(frame: Record<string, unknown>): void {
    // While warming, frames are encoded (to compile the path) but not written.
    if (state === WARMING) codec.encode(frame);
    else write(frame);
  }

  const post: PostFn = function post(kind, a, s1, s2) {
    if (typeof kind !== "number" || typeof a !== "number" || typeof s1 !== "string" || typeof s2 !== "string") return -1;
    if (state !== RUNNING && state !== WARMING) return 1;
    if (kind === 1) {
      if (state === WARMING) warmupCallId = a;
      // A string has at least as many UTF-8 bytes as characters: refuse the hopeless before encoding.
      if (state === RUNNING && s2.length > limits.frameBytes) {
        return limit(`An openclaw.tools call's arguments take over ${limits.frameBytes} bytes, the frame limit (maxFrameBytes). Pass less.`);
      }
      const body = codec.encode({ v: V, type: "bridge", id: a, op: s1, args: s2 });
      if (state === WARMING) return 0;
      if (body.length + 4 > limits.frameBytes) {
        return limit(
          `An openclaw.tools call's arguments take ${body.length} bytes, over the ${limits.frameBytes}-byte frame limit (maxFrameBytes). Pass less.`,
        );
      }
      writeOut(withLength(body));
      return 0;
    }
    if (kind === 2) {
      // One message longer than the whole log budget is cut to just over it; the parent counts
      // bytes, sees the budget exceeded and ends the run with CODE_LIMIT.
      const message = state !== WARMING && s1.length > limits.logBytes + 1 ? s1.slice(0, limits.logBytes + 1) : s1;
      send({ v: V, type: "log", level: a === 2 ? "error" : a === 1 ? "warn" : "log", message });
      return 0;
    }
    if (kind === 3) {
      const bytes = Buffer.byteLength(s1);
      if (state !== WARMING && bytes > limits.resultBytes) {
        return limit(`The return value is ${bytes} bytes of JSON, over the ${limits.resultBytes}-byte limit (maxResultBytes). Return less.`);
      }
      finishWith(null, s1);
      return 0;
    }
    if (kind === 4 || kind === 5) {
      const error: Failure = { code: "CODE_THREW", message: s1.slice(0, MAX_TEXT) };
      if (s2 !== "") error.stack = s2.slice(0, MAX_TEXT);
      finishWith(error);
      return 0;
    }
    return -1;
  };

  // The context's global is a null-prototype object: with a plain `{}`, `this.constructor` in the
  // body would resolve through the host object's prototype to the host's Object and Function.
  const context = vm.createContext(Object.create(null), {
    name: "tool_search_code",
    codeGeneration: { strings: false, wasm: false },
  });
  const hooks: RealmHooks = new vm.Script(realmSource, { filename: "toolsearch:realm" }).runInContext(context)(post);
  const start = hooks.start;
  const deliver = hooks.deliver;
  const makeError = hooks.makeError;
  const describeError = hooks.describeError;

  // A rejection the body never handles is dropped, as in a browser. Without a listener Node
  // treats it as an uncaught exception: it prints the reason with util.inspect (host code
  // formatting a body object, even calling its inspect.custom hook) and exits, which would also
  // kill bodies that await parallel calls in order (`const a = f(), b = g(); await a; await b`).
  process.on("unhandledRejection", () => undefined);
  // An exception thrown outside the body's await chain (a FinalizationRegistry callback) ends the
  // run; the message is read by the realm, so host code never touches the thrown value.
  process.on("uncaughtException", (error: unknown) => {
    if (state !== RUNNING) return;
    let message = "an exception";
    try {
      message = describeError(error);
    } catch {
      // keep the generic text
    }
    finishWith({ code: "CODE_THREW", message: ("Uncaught outside the body's await chain: " + message).slice(0, MAX_TEXT) });
  });

  function importModuleDynamically(): never {
    throw makeError("CODE_THREW", "import() is not available in code mode; use openclaw.tools.*");
  }

  function syntaxError(error: unknown): Failure {
    const e = error as { message?: unknown; stack?: unknown };
    let message = "SyntaxError: " + (typeof e.message === "string" ? e.message : "the code does not parse");
    const stack = typeof e.stack === "string" ? e.stack : "";
    const where = /^code\.js:(\d+)\n(.*)\n(.*)\n/.exec(stack);
    if (where) message += ` (line ${where[1]})\n${where[2]!.slice(0, 200)}\n${where[3]!.slice(0, 200)}`;
    return { code: "CODE_SYNTAX", message };
  }

  function run(code: string): void {
    const source = WRAP_HEAD + code + WRAP_TAIL;
    let script;
    try {
      script = new vm.Script(source, { filename: FILENAME, lineOffset: -1, importModuleDynamically });
    } catch (error) {
      finishWith(syntaxError(error));
      return;
    }
    let fn: unknown;
    try {
      fn = script.runInContext(context, { displayErrors: false });
    } catch {
      fn = undefined; // thrown by code that broke out of the wrapper; never inspected
    }
    // The compiled source must be one function literal spanning the whole wrapper; a body that
    // closes the wrapper early (`}); ...; (async function () {`) fails here.
    if (typeof fn !== "function" || Reflect.apply(functionToString, fn, []) !== source.slice(1, -1)) {
      finishWith({ code: "CODE_SYNTAX", message: "SyntaxError: the code must be the body of an async function; it closes the function early" });
      return;
    }
    try {
      start(fn as () => unknown);
    } catch {
      // start() catches everything itself; nothing the body throws may reach the host.
    }
  }

  function onFrame(frame: Record<string, unknown>): void {
    if (frame.v !== V) return;
    if (frame.type === "run" && state === WAITING && typeof frame.code === "string") {
      const l = frame.limits as Record<string, unknown> | null;
      if (l && typeof l.resultBytes === "number" && typeof l.logBytes === "number" && typeof l.frameBytes === "number") {
        limits = { resultBytes: l.resultBytes, logBytes: l.logBytes, frameBytes: l.frameBytes };
      }
      state = RUNNING;
      run(frame.code);
    } else if (frame.type === "bridge-result" && state === RUNNING && typeof frame.id === "number") {
      const text = frame.ok === true ? frame.value : JSON.stringify(frame.error);
      try {
        deliver(frame.id, frame.ok === true, typeof text === "string" ? text : "null");
      } catch {
        // A body that hooked Object.prototype can make delivery throw; that is its own problem.
      }
    }
  }

  let chunks: Buffer[] = [];
  let buffered = 0;
  function onData(chunk: Buffer): void {
    chunks.push(chunk);
    buffered += chunk.length;
    while (buffered >= 4) {
      const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
      const end = 4 + data.readUInt32BE(0);
      if (data.length < end) {
        chunks = [data];
        break;
      }
      const frame = codec.decode(data.subarray(4, end)) as Record<string, unknown>;
      const rest = data.subarray(end);
      chunks = rest.length > 0 ? [rest] : [];
      buffered = rest.length;
      onFrame(frame);
    }
  }
  /**
   * Frames come in through blocking reads of fd 0, one per turn of the event loop, not through
   * process.stdin: creating process.stdin loads the net and stream modules, a large share of a
   * child's startup CPU (docs/sandbox.md, "What the child costs"), and an async fs.read would
   * start libuv's thread pool. Blocking is fine: nothing else in this process has work to do until the
   * parent writes, and each turn ends with the microtask queue drained, so a body awaiting a
   * bridge result runs before the next read.
   */
  function readTurn(): void {
    if (pendingReady !== undefined) {
      write(pendingReady);
      pendingReady = undefined;
    }
    const chunk = Buffer.allocUnsafe(READ_CHUNK);
    let bytes = 0;
    try {
      bytes = fs.readSync(0, chunk, 0, READ_CHUNK, null);
    } catch {
      bytes = 0;
    }
    // EOF or a broken pipe: the parent is gone and nobody will kill us, so leave.
    if (bytes === 0) process.exit(0);
    setImmediate(readTurn);
    onData(chunk.subarray(0, bytes));
  }

  /**
   * The warm-up run: before `ready`, one small body goes through every path a real one takes
   * (frame decoding, compiling in the context, the realm's bridge, log and return paths, frame
   * encoding) with nothing written out. V8 compiles functions lazily on first call; doing it here
   * moves that cost from the model's wait to the child's startup, where it was paid anyway.
   */
  function warmup(): void {
    onData(withLength(codec.encode({ v: 0, type: "run", code: "", limits: { resultBytes: 1, logBytes: 1, frameBytes: 1 } })));
    onFrame(codec.decode(codec.encode({ v: 0, type: "bridge-result", id: 0, ok: true, value: "1" })) as Record<string, unknown>);
    run(WARMUP_BODY);
    deliver(warmupCallId, true, '{"id":"warmup"}');
  }

  /**
   * `ready` goes out from the first read turn, not from the startup script: Node still has
   * bootstrap work to finish after the script (and the warm-up's microtasks) returns, and a run
   * frame sent before that would wait behind it. From the read turn, ready means idle. The read
   * loop starts only here, since its blocking reads would stall the probe's socket callbacks.
   */
  let pendingReady: Record<string, unknown> | undefined;
  function ready(probe?: Record<string, unknown>): void {
    pendingReady = probe === undefined ? { v: V, type: "ready" } : { v: V, type: "ready", probe };
    setImmediate(readTurn);
  }

  function afterWarmup(): void {
    // `node -e SRC -- probe PORT`: report what this child can and cannot do, once per pool.
    if (process.argv[1] === "probe") probe();
    else ready();
  }

  function probe(): void {
    const permission = process.permission;
    let codegenBlocked = false;
    try {
      // The probe: code generation from strings must be blocked in the child.
      // oxlint-disable-next-line typescript/no-implied-eval
      new Function("return 1");
    } catch {
      codegenBlocked = true;
    }
    const facts: Record<string, unknown> = {
      pid: process.pid,
      permission: !!permission && !permission.has("fs.read") && !permission.has("child"),
      codegenBlocked,
      interfaces: Object.keys(require("node:os").networkInterfaces()),
      net: "skipped",
    };
    const port = Number(process.argv[2]);
    if (!(port > 0)) {
      ready(facts);
      return;
    }
    const settle = (outcome: string) => {
      if (facts.net !== "skipped") return;
      facts.net = outcome;
      ready(facts);
    };
    const denied = (e: { code?: unknown }) => (e && e.code === "ERR_ACCESS_DENIED" ? "denied" : "failed");
    try {
      const socket = require("node:net").connect(port, "127.0.0.1");
      socket.on("connect", () => {
        socket.destroy();
        settle("connected");
      });
      socket.on("error", (e: { code?: unknown }) => settle(denied(e)));
    } catch (e) {
      settle(denied(e as { code?: unknown }));
    }
  }

  warmup();
}
