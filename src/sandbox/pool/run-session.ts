/**
 * One body's run, seen from the parent: answers bridge frames through the engine's
 * BridgeHandler, collects logs, enforces the per-run limits and the deadline, and settles
 * exactly once — the first reason to fire (result, limit, timeout, cancel, child exit, protocol
 * breach) is the one reported. Settling always kills the child; in-flight bridge calls see their
 * AbortSignal fire and their late answers are dropped.
 */
import { CancelledError, InvalidArgsError, toErrorPayload } from "../../errors.js";
import { onAbort } from "../../abort-listeners.js";
import { checkSearchArgs, checkToolId } from "../../validation/search-args.js";
import { encodeFrame } from "../bridge/codec.js";
import { PROTOCOL_VERSION, type BridgeFrame, type LogFrame, type ParentFrame, type ResultFrame } from "../bridge/protocol.js";
import type { BridgeHandler, CodeResult, LogEntry } from "../types.js";
import type { ResolvedPoolOptions } from "./options.js";
import { trimBodyStack } from "./stack.js";
import { definedProps } from "../../defined.js";

export type FailureCode = Extract<CodeResult, { ok: false }>["error"]["code"];

export interface SessionIo {
  /** Writes a frame to the child's stdin. */
  write(bytes: Buffer): void;
  /** SIGKILLs the child (idempotent). */
  kill(): void;
}

type BridgeArgs =
  | { op: "search"; query: string | string[]; options: { limit?: number } | undefined }
  | { op: "describe"; id: string }
  | { op: "call"; id: string; args: unknown };

/** What each bridge function takes; more is refused, not dropped. */
const BRIDGE_SIGNATURES: Record<BridgeFrame["op"], readonly string[]> = { search: ["query", "options"], describe: ["id"], call: ["id", "args"] };

const OUT_OF_MEMORY = /out of memory|heap limit|allocation failed/i;

/** The abort reason in-flight bridge calls see when their run has ended. */
const RUN_ENDED = new CancelledError("The code run ended before this call finished.");

/** The argument list the body passed to openclaw.tools.<op>, checked by the rules every door shares (INVALID_ARGS when wrong). */
function parseBridgeArgs(op: BridgeFrame["op"], list: unknown[]): BridgeArgs {
  const takes = BRIDGE_SIGNATURES[op];
  if (list.length > takes.length) {
    throw new InvalidArgsError(`openclaw.tools.${op}(${takes.join(", ")}) takes ${takes.length} argument${takes.length === 1 ? "" : "s"}; got ${list.length}.`);
  }
  if (op === "search") {
    const { queries, limit } = checkSearchArgs(list[0], list[1]);
    return { op, query: typeof list[0] === "string" ? queries[0]! : queries, options: list[1] == null ? undefined : definedProps({ limit }) };
  }
  const id = checkToolId(list[0]);
  return op === "describe" ? { op, id } : { op, id, args: list[1] ?? {} };
}

export class RunSession {
  readonly result: Promise<CodeResult>;
  private resolveResult!: (result: CodeResult) => void;
  private settled = false;
  /** Made at the first bridge call: most of a body's cost in the parent is per message, and a body may make none. */
  private controller: AbortController | undefined;
  private readonly logs: LogEntry[] = [];
  private logBytes = 0;
  private bridgeCalls = 0;
  private inflight = 0;
  private readonly startedAt = performance.now();
  private readonly timer: NodeJS.Timeout;
  private offCallerAbort: () => void = () => {};
  private readonly onCallerAbort = () => this.fail("CANCELLED", "The run was cancelled by the caller; the code was stopped.");

  constructor(
    private readonly io: SessionIo,
    private readonly bridge: BridgeHandler,
    code: string,
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly limits: ResolvedPoolOptions,
  ) {
    this.result = new Promise((resolve) => (this.resolveResult = resolve));
    this.timer = setTimeout(
      () => this.fail("CODE_TIMEOUT", `The code did not finish within ${timeoutMs} ms and was stopped. Make fewer or smaller calls, or return earlier.`),
      timeoutMs,
    );
    if (signal !== undefined) this.offCallerAbort = onAbort(signal, this.onCallerAbort);
    const run: ParentFrame = {
      v: PROTOCOL_VERSION,
      type: "run",
      code,
      limits: { resultBytes: limits.maxResultBytes, logBytes: limits.maxLogBytes, frameBytes: limits.maxFrameBytes },
    };
    io.write(encodeFrame(run));
  }

  get done(): boolean {
    return this.settled;
  }

  onFrame(frame: BridgeFrame | LogFrame | ResultFrame): void {
    if (this.settled) return;
    if (frame.type === "bridge") this.onBridge(frame);
    else if (frame.type === "log") this.onLog(frame);
    else this.onResult(frame);
  }

  /** The child's process ended (its pipes are closed) before the run settled. */
  onExit(code: number | null, signal: NodeJS.Signals | null, stderr: string): void {
    if (this.settled) return;
    if (OUT_OF_MEMORY.test(stderr)) {
      this.fail(
        "CODE_LIMIT",
        `The code ran out of memory (limits: maxOldSpaceSizeMb ${this.limits.maxOldSpaceSizeMb}, maxMemoryMb ${this.limits.maxMemoryMb}) and was stopped.`,
      );
      return;
    }
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    const last = stderr.trim().split("\n").pop()?.slice(0, 200);
    this.fail("SANDBOX_UNAVAILABLE", `The sandbox child exited unexpectedly (${how})${last ? `: ${last}` : ""}.`);
  }

  /** The child sent something the protocol does not allow: it is killed. */
  onBreach(reason: string, code: FailureCode = "SANDBOX_UNAVAILABLE"): void {
    this.fail(code, `The sandbox child broke the bridge protocol (${reason}) and was killed.`);
  }

  fail(code: FailureCode, message: string, stack?: string, childFinished = false): void {
    this.settle({ ok: false, error: stack ? { code, message, stack } : { code, message }, logs: this.logs, stats: this.stats() }, childFinished);
  }

  private stats() {
    return { ms: performance.now() - this.startedAt, bridgeCalls: this.bridgeCalls };
  }

  /**
   * `childFinished`: the child itself reported the outcome, so it has nothing left to do that
   * matters. Its SIGKILL then waits for the next turn of the event loop, after the caller has
   * been handed the result: kill(2) on a process whose threads sit on another CPU can take a few
   * milliseconds on a VM, and that wait would otherwise land in every run's latency. Any other
   * ending (deadline, limit, cancel, breach) kills at once. Through the spawner the same holds
   * for the write that carries the kill: it wakes the spawner, which forks the replacement at
   * once and, on a busy machine, can take this process's CPU before the caller has its result
   * (docs/sandbox.md, "Where the parent's CPU per body goes": warm latency was worse that way).
   */
  private settle(result: CodeResult, childFinished = false): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.offCallerAbort();
    this.resolveResult(result);
    const end = () => {
      this.io.kill();
      // Only calls still in flight hold the signal for a reason; aborting costs an event dispatch.
      if (this.inflight > 0) this.controller?.abort(RUN_ENDED);
    };
    if (childFinished) setImmediate(end);
    else end();
  }

  private onLog(frame: LogFrame): void {
    const bytes = Buffer.byteLength(frame.message);
    const max = this.limits.maxLogBytes;
    if (this.logBytes + bytes > max) {
      const room = max - this.logBytes;
      if (room > 0) this.logs.push({ level: frame.level, message: Buffer.from(frame.message).subarray(0, room).toString() });
      this.fail("CODE_LIMIT", `The code logged more than ${max} bytes (maxLogBytes) and was stopped.`);
      return;
    }
    this.logBytes += bytes;
    this.logs.push({ level: frame.level, message: frame.message });
  }

  private onResult(frame: ResultFrame): void {
    if (!frame.ok) {
      const stack = frame.error.stack === undefined ? undefined : trimBodyStack(frame.error.stack);
      this.fail(frame.error.code, frame.error.message, stack, true);
      return;
    }
    const bytes = Buffer.byteLength(frame.value);
    if (bytes > this.limits.maxResultBytes) {
      this.fail(
        "CODE_LIMIT",
        `The return value is ${bytes} bytes of JSON, over the ${this.limits.maxResultBytes}-byte limit (maxResultBytes). Return less.`,
        undefined,
        true,
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(frame.value);
    } catch {
      this.onBreach("result value is not JSON");
      return;
    }
    this.settle({ ok: true, value, logs: this.logs, stats: this.stats() }, true);
  }

  private onBridge(frame: BridgeFrame): void {
    this.bridgeCalls += 1;
    if (this.bridgeCalls > this.limits.maxBridgeCalls) {
      this.fail("CODE_LIMIT", `The code made more than ${this.limits.maxBridgeCalls} openclaw.tools calls (maxBridgeCalls) and was stopped.`);
      return;
    }
    if (this.inflight >= this.limits.maxConcurrentBridgeCalls) {
      this.fail(
        "CODE_LIMIT",
        `The code had more than ${this.limits.maxConcurrentBridgeCalls} openclaw.tools calls in flight at once (maxConcurrentBridgeCalls) and was stopped. Await calls in smaller batches.`,
      );
      return;
    }
    let list: unknown;
    try {
      list = JSON.parse(frame.args);
    } catch {
      this.onBreach("bridge arguments are not JSON");
      return;
    }
    if (!Array.isArray(list)) {
      this.onBreach("bridge arguments are not a list");
      return;
    }
    let parsed: BridgeArgs;
    try {
      parsed = parseBridgeArgs(frame.op, list);
    } catch (error) {
      this.reply(frame.id, toErrorPayload(error));
      return;
    }
    this.inflight += 1;
    this.controller ??= new AbortController();
    const call = { signal: this.controller.signal };
    new Promise<unknown>((resolve) => {
      if (parsed.op === "search") resolve(this.bridge.search(parsed.query, parsed.options, call));
      else if (parsed.op === "describe") resolve(this.bridge.describe(parsed.id, call));
      else resolve(this.bridge.call(parsed.id, parsed.args, call));
    }).then(
      (value) => {
        this.inflight -= 1;
        let json: string | undefined;
        try {
          json = JSON.stringify(value);
        } catch (error) {
          this.reply(frame.id, { code: "TOOL_FAILED", message: `The tool's result is not JSON-serializable: ${toErrorPayload(error).message}` });
          return;
        }
        this.reply(frame.id, undefined, json ?? "null");
      },
      (error: unknown) => {
        this.inflight -= 1;
        this.reply(frame.id, toErrorPayload(error));
      },
    );
  }

  private reply(id: number, error: { code: string; message: string } | undefined, value?: string): void {
    if (this.settled) return;
    const bytes = encodeFrame(
      error === undefined
        ? { v: PROTOCOL_VERSION, type: "bridge-result", id, ok: true, value: value as string }
        : { v: PROTOCOL_VERSION, type: "bridge-result", id, ok: false, error: { code: error.code, message: error.message } },
    );
    if (bytes.length > this.limits.maxFrameBytes) {
      this.fail(
        "CODE_LIMIT",
        `A tool result of ${bytes.length} bytes exceeds the ${this.limits.maxFrameBytes}-byte frame limit (maxFrameBytes). Ask for less.`,
      );
      return;
    }
    this.io.write(bytes);
  }
}
