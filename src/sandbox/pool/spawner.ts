/**
 * How a sandbox child's process is started and killed, seen from the pool: through the spawner
 * (pool/spawner-main.ts), a small process that forks every child on the pool's behalf, or, where
 * the spawner cannot start, by this process itself (`spawnDirect`, the way every child was started
 * before). Both run the same launch plan and give the pool the same handle: bytes to the child's
 * stdin, its stdout and stderr as they come, its exit, and a SIGKILL that goes to node first.
 *
 * Why a spawner: most of the parent's CPU per body was the fork of this (large) process and the
 * kill and reaping of the child; through the spawner the parent writes and reads a few small
 * messages on one pipe (`node dist/bench/code-mode/breakdown.js` splits the parent's CPU per
 * body; docs/sandbox.md, "Where the parent's CPU per body goes", has the figures).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { childArgs, type LaunchPlan } from "./launch.js";
import { spawnerMain } from "./spawner-main.js";
import { SandboxUnavailableError } from "../../errors.js";

/** Message types of the spawner's wire (see pool/spawner-main.ts, which has the same numbers). */
const SPAWNER_MESSAGES = { config: 0, spawn: 1, stdin: 2, kill: 3, hello: 16, spawned: 17, stdout: 18, stderr: 19, exit: 20 } as const;
const HEADER = 9;
/** A message from the spawner is a child's read chunk (≤ 64 KiB) or a short control message; far more is a broken spawner. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** After SIGKILL to node, how long the unshare wrapper gets to reap it and exit before it is killed too. */
const WRAPPER_GRACE_MS = 2000;
/** After its stdin closes, how long the spawner gets to kill and reap its children before it is SIGKILLed. */
const SPAWNER_CLOSE_GRACE_MS = 5000;

export interface ChildEvents {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** Once, when the process has been reaped (or never started: `error` says why). */
  exit(code: number | null, signal: NodeJS.Signals | null, error?: string): void;
}

export interface ChildHandle {
  /** The wrapper's pid (the process the spawner or this process forked); undefined until known. */
  readonly pid: number | undefined;
  write(bytes: Buffer): void;
  /** SIGKILL (idempotent): to node itself under unshare, then the wrapper if it lingers. */
  kill(): void;
}

export interface LaunchSpec {
  plan: LaunchPlan;
  source: string;
  cwd: string;
  extraArgs: readonly string[];
}

/** Pids of `pid`'s children (Linux /proc; empty when unavailable). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Forks the child from this process (the fallback when no spawner runs). */
export function spawnDirect(spec: LaunchSpec, events: ChildEvents): ChildHandle {
  const proc: ChildProcessWithoutNullStreams = spawn(spec.plan.command, childArgs(spec.plan, spec.source, spec.extraArgs), {
    cwd: spec.cwd,
    env: {},
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  let done = false;
  let failure: string | undefined;
  let killed = false;
  const finish = (code: number | null, signal: NodeJS.Signals | null) => {
    if (done) return;
    done = true;
    events.exit(code, signal, failure);
  };
  proc.on("close", finish);
  // A failed spawn (no pid) emits 'error' and may never emit 'close'.
  proc.on("error", (error) => {
    failure = error.message;
    if (proc.pid === undefined) finish(null, null);
  });
  proc.stdin.on("error", () => undefined); // EPIPE after the child died; 'close' reports it
  proc.stdout.on("data", (chunk: Buffer) => events.stdout(chunk));
  proc.stderr.on("data", (chunk: Buffer) => events.stderr(chunk));
  return {
    pid: proc.pid,
    write: (bytes) => proc.stdin.write(bytes),
    kill: () => {
      if (killed || done || proc.pid === undefined) return;
      killed = true;
      const inner = spec.plan.unshare ? childrenOf(proc.pid) : [];
      if (inner.length === 0) {
        proc.kill("SIGKILL");
        return;
      }
      for (const pid of inner) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      const grace = setTimeout(() => {
        if (!done) proc.kill("SIGKILL");
      }, WRAPPER_GRACE_MS);
      grace.unref();
      proc.once("close", () => clearTimeout(grace));
    },
  };
}

/** The spawner's `--eval` source; the marker names the pool (not `toolsearch-sandbox:`, which marks children). */
function spawnerSource(tag: string): string {
  return `"use strict";/*toolsearch-spawner:${tag}*/(${spawnerMain.toString()})(require);`;
}

class SpawnedChild implements ChildHandle {
  pid: number | undefined;
  exited = false;
  private killSent = false;

  constructor(
    private readonly spawner: Spawner,
    readonly id: number,
    readonly events: ChildEvents,
  ) {}

  write(bytes: Buffer): void {
    if (!this.exited && !this.killSent) this.spawner.send(SPAWNER_MESSAGES.stdin, this.id, bytes);
  }

  kill(): void {
    if (this.exited || this.killSent) return;
    this.killSent = true;
    this.spawner.send(SPAWNER_MESSAGES.kill, this.id);
  }
}

/**
 * The parent's side of one spawner process. `ready` resolves once it has said hello; `alive` is
 * false once it has exited (its children then exit with it: their parent-death signal, its
 * stdin's EOF), after which the pool starts another.
 */
export class Spawner {
  readonly ready: Promise<void>;
  readonly closed: Promise<void>;
  readonly pid: number | undefined;
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly kids = new Map<number, SpawnedChild>();
  private nextId = 1;
  private pending: Buffer | undefined;
  private aliveValue = true;
  /** Writes to the spawner's stdin and reads from its stdout so far: each wakes one of the two processes (the bench and tests count them per body). */
  readonly io = { writes: 0, reads: 0 };
  private stderrTail = "";

  /** The launch the spawner was last told (CONFIG); a spawn with another one sends CONFIG first. */
  private configured: { plan: LaunchPlan; source: string; cwd: string } | undefined;

  constructor(plan: LaunchPlan, cwd: string, tag: string, startTimeoutMs: number) {
    // setpriv's parent-death SIGKILL where the plan has setpriv: a spawner outlives no parent.
    const wrapper = plan.setpriv ? [plan.command, "--pdeathsig", "KILL"] : [];
    const argv = [...wrapper, process.execPath, "--max-old-space-size=64", "--eval", spawnerSource(tag)];
    this.proc = spawn(argv[0]!, argv.slice(1), { cwd, env: {}, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    this.pid = this.proc.pid;
    let hello: () => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      hello = resolve;
      fail = reject;
    });
    this.ready.catch(() => undefined); // observed by the pool
    const timer = setTimeout(() => {
      fail(new SandboxUnavailableError(`the spawner did not start within ${startTimeoutMs} ms`));
      this.proc.kill("SIGKILL");
    }, startTimeoutMs);
    this.onHello = () => {
      clearTimeout(timer);
      hello();
    };
    this.closed = new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.aliveValue = false;
        const detail = this.stderrTail.trim().split("\n").slice(-2).join(" | ").slice(0, 300);
        fail(new SandboxUnavailableError(`the spawner exited before it started${detail ? `: ${detail}` : ""}`));
        for (const kid of this.kids.values()) this.exitKid(kid, null, null, "the spawner exited");
        resolve();
      };
      this.proc.on("close", finish);
      this.proc.on("error", (error) => {
        this.stderrTail += `\n${error.message}`;
        if (this.proc.pid === undefined) finish();
      });
    });
    this.proc.stdin.on("error", () => undefined);
    this.proc.stdout.on("data", (chunk: Buffer) => this.onData(chunk));
    this.proc.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2048);
    });
  }

  private onHello: () => void;

  get alive(): boolean {
    return this.aliveValue;
  }

  /** Asks the spawner for one child under `spec.plan`; `spec.extraArgs` follow `--` (the probe's). */
  spawn(spec: LaunchSpec, events: ChildEvents): ChildHandle {
    const kid = new SpawnedChild(this, this.nextId++, events);
    this.kids.set(kid.id, kid);
    if (!this.aliveValue) {
      this.exitKid(kid, null, null, "the spawner has exited");
      return kid;
    }
    const last = this.configured;
    if (last === undefined || last.plan !== spec.plan || last.source !== spec.source || last.cwd !== spec.cwd) {
      this.configured = { plan: spec.plan, source: spec.source, cwd: spec.cwd };
      const config = { command: spec.plan.command, args: childArgs(spec.plan, spec.source, []), cwd: spec.cwd, unshare: spec.plan.unshare };
      this.send(SPAWNER_MESSAGES.config, 0, Buffer.from(JSON.stringify(config)));
    }
    this.send(SPAWNER_MESSAGES.spawn, kid.id, spec.extraArgs.length > 0 ? Buffer.from(JSON.stringify(spec.extraArgs)) : undefined);
    return kid;
  }

  /** Closes the spawner's stdin: it kills what is left and exits; SIGKILLed if it lingers. */
  async close(): Promise<void> {
    if (this.aliveValue) {
      this.proc.stdin.end();
      const grace = setTimeout(() => this.proc.kill("SIGKILL"), SPAWNER_CLOSE_GRACE_MS);
      grace.unref();
      await this.closed;
      clearTimeout(grace);
    }
  }

  /**
   * Queues one message. Control messages (spawn, kill) go out in one write once the current
   * callback and its promise continuations have run (process.nextTick), so that a kill and the
   * replacement's spawn cost one write(2) and one wake-up of the spawner, without the extra turn
   * of the event loop (an epoll_pwait and a pass over the timers) that setImmediate would add per
   * body; a child's stdin bytes go at once, with the queue. Small payloads are copied behind
   * their header; a large one goes as a vectored write.
   */
  send(type: number, id: number, payload?: Buffer): void {
    if (!this.aliveValue) return;
    const length = payload === undefined ? 0 : payload.length;
    const header = Buffer.allocUnsafe(HEADER);
    header.writeUInt32BE(HEADER - 4 + length, 0);
    header.writeUInt8(type, 4);
    header.writeUInt32BE(id, 5);
    this.outbox.push(header);
    this.outboxBytes += HEADER;
    if (payload !== undefined && length > 0) {
      this.outbox.push(payload);
      this.outboxBytes += length;
    }
    // A child's stdin bytes (a run, a bridge result) are what a body waits on: out now, with
    // whatever was queued before them. Control messages wait for the end of the turn.
    if (type === SPAWNER_MESSAGES.stdin) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.scheduledFlush);
    }
  }

  private outbox: Buffer[] = [];
  private outboxBytes = 0;
  private flushScheduled = false;
  private readonly scheduledFlush = () => {
    this.flushScheduled = false;
    this.flush();
  };
  private readonly flush = () => {
    const parts = this.outbox;
    const bytes = this.outboxBytes;
    this.outbox = [];
    this.outboxBytes = 0;
    if (!this.aliveValue || parts.length === 0) return;
    this.io.writes += 1;
    if (bytes <= 64 * 1024) {
      this.proc.stdin.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes));
      return;
    }
    this.proc.stdin.cork();
    for (const part of parts) this.proc.stdin.write(part);
    this.proc.stdin.uncork();
  };

  private exitKid(kid: SpawnedChild, code: number | null, signal: NodeJS.Signals | null, error?: string): void {
    if (kid.exited) return;
    kid.exited = true;
    this.kids.delete(kid.id);
    kid.events.exit(code, signal, error);
  }

  private onData(chunk: Buffer): void {
    this.io.reads += 1;
    const data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    let at = 0;
    while (data.length - at >= 4) {
      const length = data.readUInt32BE(at);
      if (length < HEADER - 4 || length > MAX_MESSAGE_BYTES) {
        // Our own process, but broken: its children die with it.
        this.proc.kill("SIGKILL");
        return;
      }
      const end = at + 4 + length;
      if (data.length < end) break;
      this.onMessage(data.readUInt8(at + 4), data.readUInt32BE(at + 5), data.subarray(at + HEADER, end));
      at = end;
    }
    if (at < data.length) this.pending = data.subarray(at);
  }

  private onMessage(type: number, id: number, payload: Buffer): void {
    if (type === SPAWNER_MESSAGES.hello) {
      this.onHello();
      return;
    }
    const kid = this.kids.get(id);
    if (kid === undefined) return;
    if (type === SPAWNER_MESSAGES.stdout) kid.events.stdout(payload);
    else if (type === SPAWNER_MESSAGES.stderr) kid.events.stderr(payload);
    else if (type === SPAWNER_MESSAGES.spawned) {
      const pid = payload.readUInt32BE(0);
      if (pid > 0) kid.pid = pid;
    } else if (type === SPAWNER_MESSAGES.exit) {
      let info: { code?: number | null; signal?: NodeJS.Signals | null; error?: string } = {};
      try {
        info = JSON.parse(payload.toString("utf8")) as typeof info;
      } catch {
        // keep the blanks
      }
      this.exitKid(kid, info.code ?? null, info.signal ?? null, info.error);
    }
  }
}
