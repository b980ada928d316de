/**
 * One sandbox child process, from spawn to reaping. Lifecycle:
 *
 *   starting ──ready frame──▶ ready ──run()──▶ running ──settled──▶ dead
 *       └──────── exit / breach / start timeout / kill() ─────────────▲
 *
 * A child runs at most one body. `dead` means "never usable again": the SIGKILL has been sent
 * (or the process is gone); `closed` resolves once the process is reaped and its pipes are shut.
 */
import { decodeFrameBody, FrameReader, FrameTooLargeError } from "../bridge/codec.js";
import type { ProbeFacts } from "../bridge/protocol.js";
import { checkChildFrame } from "../bridge/validate.js";
import type { BridgeHandler, CodeResult } from "../types.js";
import type { LaunchPlan } from "./launch.js";
import type { ResolvedPoolOptions } from "./options.js";
import { RunSession } from "./run-session.js";
import { spawnDirect, type ChildHandle, type Spawner } from "./spawner.js";
import { InternalError, SandboxUnavailableError } from "../../errors.js";

export enum ChildState {
  Starting = "starting",
  Ready = "ready",
  Running = "running",
  Dead = "dead",
}

export interface ChildSpec {
  plan: LaunchPlan;
  source: string;
  cwd: string;
  options: ResolvedPoolOptions;
  /** Extra argv for the child (the probe's `probe PORT`). */
  extraArgs?: readonly string[];
  /** Forks the child on this process's behalf; without one (or once it has exited) this process forks it. */
  spawner?: Spawner;
}

/** A child that never got to `ready`: the probe and the pool tell it apart from a failed run. */
export class ChildStartError extends SandboxUnavailableError {}

const STDERR_TAIL = 4096;
export class SandboxChild {
  private stateValue = ChildState.Starting;
  /** Resolves with the probe facts (or undefined) once the child is ready; rejects if it never gets there. */
  readonly ready: Promise<ProbeFacts | undefined>;
  /** Resolves when the process has exited and its pipes are closed. */
  readonly closed: Promise<void>;
  /** Called once when the child leaves the ready/starting pool of usable children unexpectedly or after its run. */
  onDead: ((child: SandboxChild) => void) | undefined;

  private readonly handle: ChildHandle;
  private readonly reader: FrameReader;
  private readonly startTimer: NodeJS.Timeout;
  private session: RunSession | undefined;
  private stderrTail = "";
  private killed = false;
  private exited = false;
  private resolveReady!: (facts: ProbeFacts | undefined) => void;
  private rejectReady!: (error: Error) => void;

  constructor(private readonly spec: ChildSpec) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined); // observed by the pool; never an unhandled rejection
    this.reader = new FrameReader(spec.options.maxFrameBytes);
    let closed: () => void = () => undefined;
    this.closed = new Promise((resolve) => (closed = resolve));
    const events = {
      stdout: (chunk: Buffer) => this.onData(chunk),
      stderr: (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
      },
      exit: (code: number | null, signal: NodeJS.Signals | null, error?: string) => {
        if (error !== undefined) this.stderrTail += `\n${error}`;
        this.onClosed(code, signal);
        closed();
      },
    };
    const launch = { plan: spec.plan, source: spec.source, cwd: spec.cwd, extraArgs: spec.extraArgs ?? [] };
    this.handle = spec.spawner?.alive ? spec.spawner.spawn(launch, events) : spawnDirect(launch, events);
    this.startTimer = setTimeout(() => this.failStart(`not ready within ${spec.options.startTimeoutMs} ms`), spec.options.startTimeoutMs);
  }

  /** The pid of the process forked for this child (the outermost wrapper); undefined until known. */
  get pid(): number | undefined {
    return this.handle.pid;
  }

  get state(): ChildState {
    return this.stateValue;
  }

  /** True until the process has been reaped. */
  get alive(): boolean {
    return !this.exited;
  }

  /** Runs one body. Precondition: state is Ready. */
  run(code: string, bridge: BridgeHandler, timeoutMs: number, signal: AbortSignal | undefined): Promise<CodeResult> {
    // The pool hands bodies to ready children only: anything else is a bug of the pool.
    if (this.stateValue !== ChildState.Ready) throw new InternalError(`sandbox child is ${this.stateValue}, not ready`);
    this.stateValue = ChildState.Running;
    this.session = new RunSession({ write: (bytes) => this.handle.write(bytes), kill: () => this.kill() }, bridge, code, timeoutMs, signal, this.spec.options);
    return this.session.result;
  }

  /** Ends a running body with the given failure (used when the pool closes). */
  abort(code: "SANDBOX_UNAVAILABLE", message: string): void {
    if (this.session && !this.session.done) this.session.fail(code, message);
    this.kill();
  }

  /**
   * SIGKILL, whatever the child is doing. Under unshare the signal goes to node itself (PID 1 of
   * its namespace, which takes every other process in the namespace with it); unshare then reaps
   * it and exits, so no zombie is left for init to collect. If node cannot be found, or the
   * wrapper lingers, the wrapper is killed and --kill-child's PDEATHSIG takes node down.
   */
  kill(): void {
    if (this.killed) return;
    this.killed = true;
    this.markDead();
    if (!this.exited) this.handle.kill();
  }

  private markDead(): void {
    if (this.stateValue === ChildState.Dead) return;
    this.stateValue = ChildState.Dead;
    clearTimeout(this.startTimer);
    this.onDead?.(this);
  }

  private failStart(reason: string): void {
    if (this.stateValue !== ChildState.Starting) return;
    const detail = this.stderrTail.trim().split("\n").slice(-3).join(" | ").slice(0, 500);
    this.rejectReady(new ChildStartError(detail ? `${reason}: ${detail}` : reason));
    this.kill();
  }

  private breach(reason: string, tooLarge = false): void {
    if (this.stateValue === ChildState.Starting) this.failStart(`protocol breach: ${reason}`);
    else if (this.session && !this.session.done) this.session.onBreach(reason, tooLarge ? "CODE_LIMIT" : "SANDBOX_UNAVAILABLE");
    this.kill();
  }

  private onData(chunk: Buffer): void {
    if (this.killed) return;
    let bodies: Buffer[];
    try {
      bodies = this.reader.push(chunk);
    } catch (error) {
      this.breach(error instanceof FrameTooLargeError ? error.message : "unreadable frame", error instanceof FrameTooLargeError);
      return;
    }
    for (const body of bodies) {
      if (this.killed) return;
      let decoded: unknown;
      try {
        decoded = decodeFrameBody(body);
      } catch {
        this.breach("frame is not valid msgpack");
        return;
      }
      const check = checkChildFrame(decoded);
      if (!check.ok) {
        this.breach(check.reason);
        return;
      }
      const frame = check.frame;
      if (this.stateValue === ChildState.Starting && frame.type === "ready") {
        this.stateValue = ChildState.Ready;
        clearTimeout(this.startTimer);
        this.resolveReady(frame.probe);
      } else if (this.stateValue === ChildState.Running && frame.type !== "ready" && this.session) {
        try {
          this.session.onFrame(frame);
        } catch (error) {
          // A bug on this side must cost one run, never the parent process.
          this.session.fail("SANDBOX_UNAVAILABLE", `Internal error while handling a "${frame.type}" frame: ${(error as Error).message}`);
          this.kill();
          return;
        }
      } else {
        this.breach(`unexpected "${frame.type}" frame while ${this.stateValue}`);
        return;
      }
    }
  }

  private onClosed(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    clearTimeout(this.startTimer);
    if (this.stateValue === ChildState.Starting) {
      this.failStart(`exited before ready (${signal ? `signal ${signal}` : `exit code ${code}`})`);
    }
    if (this.session && !this.session.done) this.session.onExit(code, signal, this.stderrTail);
    this.killed = true;
    this.markDead();
  }
}
