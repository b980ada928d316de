/**
 * The stdio client transport: the server as a child process, newline-delimited JSON-RPC on its
 * stdin and stdout, like the SDK's StdioClientTransport (same spawn through cross-spawn, same
 * inherited environment), with two differences the SDK's has no option for:
 *
 * - On POSIX the child leads a process group of its own (`detached`), and a stop is sent to the
 *   whole group: `npx -y <server>` runs the server as a grandchild, which a signal to npx alone
 *   would leave running, and npm itself must get SIGTERM (it rolls back a half-done install on
 *   it) before any SIGKILL, or its cache is left with a 0-byte package.json that breaks every
 *   later `npx` of that package.
 * - Reads go through BoundedLineBuffer (message-limit.ts): a line past `maxMessageBytes` is
 *   dropped as it arrives, and no line is concatenated quadratically.
 */
import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { PassThrough } from "node:stream";
import spawn from "cross-spawn";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { InternalError } from "../errors.js";
import { BoundedLineBuffer } from "./message-limit.js";
import { definedProps } from "../defined.js";

/** Process groups are POSIX; on Windows a stop reaches the child alone, as the SDK's transport does. */
const OWN_GROUP = process.platform !== "win32";
/** How often a stop looks whether the group has ended, within its grace period. */
const GROUP_POLL_MS = 50;

export interface StdioServerProcess {
  command: string;
  args: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
  stderr: "pipe" | "inherit" | "ignore";
  maxMessageBytes: number;
}

export interface StopGraces {
  /** After stdin is closed, before SIGTERM. */
  killGraceMs: number;
  /** After SIGTERM, before SIGKILL. */
  termGraceMs: number;
}

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The child's stderr when piped; there from construction, so that no early line is lost. */
  readonly stderr: PassThrough | null;
  private child: ChildProcess | undefined;
  private spawnedPid: number | undefined;
  private readonly reader: BoundedLineBuffer;
  private exitedFlag = false;
  private markExited: () => void = () => {};
  /** Resolves when the child has exited and its pipes closed (or it never started). */
  readonly exited = new Promise<void>((resolve) => (this.markExited = resolve));

  constructor(private readonly params: StdioServerProcess) {
    this.reader = new BoundedLineBuffer(params.maxMessageBytes);
    this.stderr = params.stderr === "pipe" ? new PassThrough() : null;
  }

  /** The child's pid once spawned, kept after it exits (a stop still signals its group). */
  get pid(): number | undefined {
    return this.spawnedPid;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new InternalError("the stdio transport was started twice"));
    return new Promise<void>((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        stdio: ["pipe", "pipe", this.params.stderr],
        shell: false,
        windowsHide: true,
        detached: OWN_GROUP,
        ...definedProps({ cwd: this.params.cwd }),
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
        if (this.spawnedPid === undefined) this.exit();
      });
      child.on("spawn", () => {
        this.spawnedPid = child.pid;
        resolve();
      });
      child.on("close", () => this.exit());
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        this.reader.append(chunk);
        this.readMessages();
      });
      if (this.stderr && child.stderr) child.stderr.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exitedFlag || stdin.writableEnded) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, "Not connected"));
    return new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Closes stdin (a server reading it exits on its own); `stop` ends what does not. */
  close(): Promise<void> {
    try {
      this.child?.stdin?.end();
    } catch {
      // already closed
    }
    return Promise.resolve();
  }

  /**
   * Ends the server gently, and everything it started: stdin closed; after `killGraceMs`, SIGTERM
   * to its process group if anything of it still runs (the server itself, or what it started
   * and left behind); after `termGraceMs`, SIGKILL. Resolves when the child is gone.
   */
  async stop(graces: StopGraces): Promise<void> {
    const pid = this.spawnedPid;
    await this.close();
    if (pid === undefined) return;
    await settledWithin(this.exited, graces.killGraceMs);
    if (!(await this.groupRuns(pid))) return;
    this.signal(pid, "SIGTERM");
    const deadline = Date.now() + graces.termGraceMs;
    while ((await this.groupRuns(pid)) && Date.now() < deadline) await delay(GROUP_POLL_MS);
    if (await this.groupRuns(pid)) this.signal(pid, "SIGKILL");
    await settledWithin(this.exited, 2_000);
  }

  private readMessages(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.reader.readMessage();
      } catch (error) {
        // A line that is not a message (junk on stdout): reported, and the next line is read.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private exit(): void {
    if (this.exitedFlag) return;
    this.exitedFlag = true;
    this.reader.clear();
    this.markExited();
    this.onclose?.();
  }

  /** Whether anything of the server's group still runs (on Windows: the child itself). */
  private async groupRuns(pid: number): Promise<boolean> {
    if (!OWN_GROUP) return !this.exitedFlag;
    try {
      process.kill(-pid, 0);
    } catch {
      return false;
    }
    return process.platform === "linux" ? groupHasLiveMember(pid) : true;
  }

  private signal(pid: number, signal: NodeJS.Signals): void {
    try {
      if (OWN_GROUP) process.kill(-pid, signal);
      else this.child?.kill(signal);
    } catch {
      // gone meanwhile
    }
  }
}

/** true if `promise` settled within `ms`. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Linux: whether a process of group `pgid` runs, zombies aside. What the server started outlives
 * it as an orphan, and an orphan that exited stays a member (a zombie) until the system's init
 * reaps it: some container inits take a second or more, a Node process as PID 1 never does.
 * Waiting on those would make every stop take its whole grace period.
 */
async function groupHasLiveMember(pgid: number): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") return true;
  }
  return false;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
