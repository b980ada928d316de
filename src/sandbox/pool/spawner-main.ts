/**
 * The spawner: a small Node process that forks the sandbox children on the pool's behalf, so the
 * large parent never forks per body. fork() copies the parent's page tables (its cost grows with
 * the parent's RSS) and every child's three pipes become stream objects in the parent; here both
 * are paid by a process of a few tens of MiB that does nothing else. The parent keeps everything
 * that decides: the frame caps and validation, the deadline, when a child dies.
 *
 * It runs the pool's launch plan unchanged (the same wrappers, flags and `--eval` source) and
 * relays bytes only: a child's stdout and stderr go to the parent as they come, tagged with the
 * child's id, and never parsed here. Wire format, both ways: [u32 BE length of the rest][u8 type]
 * [u32 BE child id][payload]; types in SPAWNER_MESSAGES (pool/spawner.ts).
 *
 * It dies with the parent: started under `setpriv --pdeathsig KILL` where the plan has setpriv
 * (then each child's own pdeathsig takes the child down with it), and it SIGKILLs every child and
 * exits when its stdin closes (the parent is gone or closed the pool).
 *
 * Serialised with Function.prototype.toString (pool/spawner.ts): self-contained, no imports.
 */
/** CommonJS require, as the serialised source gets it; the types below are erased, so the source stays self-contained. */
type Require = (id: string) => unknown;
type ChildProcessModule = typeof import("node:child_process");
type FsModule = typeof import("node:fs");
type Child = import("node:child_process").ChildProcessWithoutNullStreams;

export function spawnerMain(require: Require): void {
  "use strict";
  const { spawn } = require("node:child_process") as ChildProcessModule;
  const fs = require("node:fs") as FsModule;
  const HEADER = 9;
  const CONFIG = 0;
  const SPAWN = 1;
  const STDIN = 2;
  const KILL = 3;
  const HELLO = 16;
  const SPAWNED = 17;
  const STDOUT = 18;
  const STDERR = 19;
  const EXIT = 20;
  const WRAPPER_GRACE_MS = 2000;
  const LAZY_MS = 100;

  interface Kid {
    proc: Child;
    killed: boolean;
  }
  let config: { command: string; args: string[]; cwd: string; unshare: boolean } | undefined;
  const kids = new Map<number, Kid>();
  let ending = false;
  const out = process.stdout;
  let corked = false;

  /** Messages of one turn go out in one writev: cork at the first, uncork on the next tick. */
  function send(type: number, id: number, payload?: Buffer): void {
    if (lazy.length > 0) flushLazy();
    write(type, id, payload);
  }

  function write(type: number, id: number, payload?: Buffer): void {
    const header = Buffer.allocUnsafe(HEADER);
    header.writeUInt32BE(HEADER - 4 + (payload === undefined ? 0 : payload.length), 0);
    header.writeUInt8(type, 4);
    header.writeUInt32BE(id, 5);
    if (!corked) {
      corked = true;
      out.cork();
      process.nextTick(() => {
        corked = false;
        out.uncork();
      });
    }
    out.write(header);
    if (payload !== undefined && payload.length > 0) out.write(payload);
  }

  /**
   * The exit of a child the parent had killed, and stderr, wait for the next urgent message
   * (a child's output), or at most LAZY_MS: nobody waits on them (a slot is freed when the parent
   * kills the child, not when it is reaped), and each sent alone would wake the parent once more
   * per body.
   */
  const lazy: Array<[number, number, Buffer]> = [];
  let lazyTimer: ReturnType<typeof setTimeout> | undefined;
  function sendLazy(type: number, id: number, payload: Buffer): void {
    lazy.push([type, id, payload]);
    if (lazyTimer === undefined) lazyTimer = setTimeout(flushLazy, LAZY_MS);
  }
  function flushLazy(): void {
    if (lazyTimer !== undefined) clearTimeout(lazyTimer);
    lazyTimer = undefined;
    for (const [type, id, payload] of lazy.splice(0)) write(type, id, payload);
  }

  function childrenOf(pid: number): number[] {
    try {
      return String(fs.readFileSync("/proc/" + pid + "/task/" + pid + "/children", "utf8"))
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  }

  /** The pool's kill (pool/sandbox-child.ts): node first under unshare, the wrapper if it lingers. */
  function kill(kid: Kid): void {
    if (kid.killed) return;
    kid.killed = true;
    const proc = kid.proc;
    if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
    const inner = config !== undefined && config.unshare ? childrenOf(proc.pid) : [];
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
    const grace = setTimeout(() => proc.kill("SIGKILL"), WRAPPER_GRACE_MS);
    grace.unref();
    proc.once("exit", () => clearTimeout(grace));
  }

  function finish(): void {
    if (!ending || kids.size > 0) return;
    flushLazy();
    // Exit once what was written has gone out (process.exit would drop a corked write).
    out.end(() => process.exit(0));
  }

  function start(id: number, extra: string[]): void {
    if (config === undefined || ending) {
      send(EXIT, id, Buffer.from(JSON.stringify({ code: null, signal: null, error: "the spawner has no launch plan" })));
      return;
    }
    let proc: Child;
    try {
      proc = spawn(config.command, extra.length > 0 ? config.args.concat(["--"], extra) : config.args, {
        cwd: config.cwd,
        env: {},
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      send(EXIT, id, Buffer.from(JSON.stringify({ code: null, signal: null, error: String((error as Error).message) })));
      return;
    }
    const kid: Kid = { proc, killed: false };
    kids.set(id, kid);
    const pid = Buffer.allocUnsafe(4);
    pid.writeUInt32BE(proc.pid === undefined ? 0 : proc.pid, 0);
    // Nobody waits on the pid (the pool kills by id): it goes with the child's first output (its
    // ready frame), which is urgent and flushes what waits, instead of waking the parent once more per body.
    sendLazy(SPAWNED, id, pid);
    let failure = "";
    proc.on("error", (error: Error) => {
      failure = String(error.message);
    });
    proc.stdin.on("error", () => undefined);
    // Once the parent has asked for the kill it reads nothing more from the child (its run has
    // settled), and unshare prints a line to stderr as it reaps a SIGKILLed node: dropped here,
    // each would wake the parent once more per body. Stderr is read only when a child fails (to
    // start, or unasked), after output or the exit that flushes it: it can wait.
    proc.stdout.on("data", (chunk: Buffer) => {
      if (!kid.killed) send(STDOUT, id, chunk);
    });
    proc.stderr.on("data", (chunk: Buffer) => {
      if (!kid.killed) sendLazy(STDERR, id, chunk);
    });
    proc.on("close", (code: number | null, signal: string | null) => {
      kids.delete(id);
      const exit = Buffer.from(JSON.stringify(failure === "" ? { code, signal } : { code, signal, error: failure }));
      // A child that died unasked (a crash, its memory cap) may have a body waiting on it: urgent.
      if (kid.killed) sendLazy(EXIT, id, exit);
      else send(EXIT, id, exit);
      finish();
    });
  }

  function onMessage(type: number, id: number, payload: Buffer): void {
    if (type === STDIN) {
      const kid = kids.get(id);
      if (kid !== undefined && !kid.killed) kid.proc.stdin.write(payload);
    } else if (type === KILL) {
      const kid = kids.get(id);
      if (kid !== undefined) kill(kid);
    } else if (type === SPAWN) {
      start(id, payload.length > 0 ? JSON.parse(payload.toString("utf8")) : []);
    } else if (type === CONFIG) {
      config = JSON.parse(payload.toString("utf8"));
    }
  }

  let pending: Buffer | undefined;
  process.stdin.on("data", (chunk: Buffer) => {
    let data = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    pending = undefined;
    let at = 0;
    while (data.length - at >= 4) {
      const end = at + 4 + data.readUInt32BE(at);
      if (data.length < end) break;
      onMessage(data.readUInt8(at + 4), data.readUInt32BE(at + 5), data.subarray(at + HEADER, end));
      at = end;
    }
    if (at < data.length) pending = data.subarray(at);
  });
  // The parent closed the pool, or died: no child may outlive it.
  process.stdin.on("end", () => {
    ending = true;
    for (const kid of kids.values()) kill(kid);
    finish();
  });
  function abandon(): void {
    for (const kid of kids.values()) {
      try {
        kid.proc.kill("SIGKILL");
      } catch {
        // keep going
      }
    }
    process.exit(1);
  }
  // EPIPE: the parent is gone.
  out.on("error", abandon);
  process.on("uncaughtException", abandon);
  send(HELLO, 0);
}
