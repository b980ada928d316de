/**
 * An MCP server as a catalog source: ids `mcp:<name>:<tool>`.
 *
 * Lifecycle (one state at a time):
 *   idle ──start()──▶ connecting ──▶ ready ──(server exits / stops answering)──▶ gone
 *                        │  ▲                                                    │
 *                        │  └──────────── retry timer (Backoff) ◀────────────────┤
 *                        └──(down, timeout)──▶ failed ───────────────────────────┘
 *   any ──close()──▶ closed
 * Once started, the source keeps itself connected: a start that fails and a server that goes
 * away are tried again in the background after a delay that doubles with each failure in a row
 * (with jitter, up to `retryMaxDelayMs`). Nothing waits for a reconnect: a run uses the tools
 * the source has now. `start()` waits at most `connectTimeoutMs`; a first start (which for
 * `npx -y <server>` may install packages) goes on in the background for up to
 * `startupTimeoutMs`, and listeners hear when it is ready. A stdio server stopped while
 * starting, or at close, is stopped gently (stdio-transport.ts).
 *
 * In every state but ready, `tools()` is empty and `unavailableReason()` says why; calls fail
 * with TOOL_UNAVAILABLE. In ready, calls share `maxConcurrentCalls` slots fairly by tenant
 * (call-slots.ts), and a server whose calls keep timing out has its circuit breaker opened
 * (circuit-breaker.ts): its calls then fail at once until a probe is answered. Listeners hear
 * every change of `tools()` (a server gone, a re-list after `tools/list_changed`, a (re)connect);
 * `onEvent` listeners hear every try, failure and breaker change (for the operator's log).
 *
 * Messages: `unavailableReason()` reaches the model (inside TOOL_UNAVAILABLE), so it is short and
 * names neither the command's arguments nor the URL's query; `problem()`, the error `start()`
 * throws and the events are for the operator (the catalog's source status, stderr) and carry
 * the child's last stderr lines.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { onAbort } from "../abort-listeners.js";
import type { CatalogSource } from "../catalog/sources.js";
import type { ToolContext, ToolDefinition } from "../catalog/types.js";
import { stripControl, truncate } from "../text/prompt-text.js";
import { InternalError, ToolFailedError, ToolTimeoutError, ToolUnavailableError } from "../errors.js";
import { Backoff } from "./backoff.js";
import { interpretCallResult } from "./call-result.js";
import { CallSlots } from "./call-slots.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import type { McpConnection, ConnectionEvents, ToolListing } from "./connection.js";
import { describeError } from "./describe-error.js";
import { loadMcpClient, type McpClientParts } from "./load-client.js";
import { mapTool } from "./map-tool.js";
import {
  resolveMcpConfig,
  resolveMcpOptions,
  type McpServerConfig,
  type McpServerOptions,
  type ResolvedMcpConfig,
  type ResolvedMcpOptions,
} from "./options.js";
import { mapToolNames } from "./tool-names.js";
import { definedProps } from "../defined.js";
import type { McpSourceState, McpTransport } from "./mcp-source-state.js";

export type { McpSourceState } from "./mcp-source-state.js";

/** A snapshot for operators and tests. */
export interface McpSourceStatus {
  name: string;
  transport: McpTransport;
  state: McpSourceState;
  /** Why the source is not serving, when it is not (its circuit breaker open included). */
  reason?: string;
  tools: number;
  /** The server offered more than `maxTools` tools; the rest were left out. */
  truncated: boolean;
  /** stdio: the child's pid while it runs (connecting included). */
  pid?: number;
  /** The last failed re-list after `tools/list_changed` (the previous list was kept). */
  lastListError?: string;
  /** stdio with stderr "capture": the child's last stderr lines. */
  stderr?: string;
  /**
   * Failures in a row, which set the delay before the next try: starts that failed, and
   * connections that ended before lasting `retryMaxDelayMs` (one that lasted longer starts the count afresh).
   */
  failures: number;
  /** While a try is scheduled: how long until it. */
  retryInMs?: number;
  /** "open": calls fail at once (they kept timing out) until a probe is answered. */
  breaker: "closed" | "open";
  /** Calls sent to the server now, and calls waiting for one of its `maxConcurrentCalls` slots. */
  calls: { running: number; queued: number };
}

/**
 * What happens to a source, for the operator's log. `reason` is the operator's message (it may
 * end with the server's stderr); each try is one `connecting` and then one `ready` or `failed`,
 * and the delays between tries grow, so a server that stays down logs less and less often.
 */
export type McpSourceEvent =
  /**
   * A try starts: `attempt` counts the tries since the server was last up (1: the first start, or
   * the first try after it went away); `first`: the source's very first start.
   */
  | { kind: "connecting"; attempt: number; first: boolean }
  /** `start()` stopped waiting after `connectTimeoutMs`; the try goes on in the background. */
  | { kind: "slow"; afterMs: number }
  /** The server is ready; `first`: for the first time (not a reconnect). */
  | { kind: "ready"; attempt: number; first: boolean; ms: number; tools: number }
  | { kind: "failed"; attempt: number; reason: string; retryInMs: number }
  /** A ready server exited or stopped answering. */
  | { kind: "gone"; reason: string; retryInMs: number }
  | { kind: "breaker-open"; reason: string; retryInMs: number }
  | { kind: "breaker-closed" };

const MAX_SERVER_TEXT = 1_000;
/** Calls waiting for one server, all tenants together, as a multiple of one tenant's share. */
const QUEUED_CALLS_PER_SERVER_SHARES = 16;

export class McpServerSource implements CatalogSource {
  readonly source = "mcp" as const;
  readonly toolset: string;
  private readonly config: ResolvedMcpConfig;
  private readonly options: ResolvedMcpOptions;
  private state: McpSourceState = "idle";
  private reason: string | undefined;
  /** The operator's account of the last failure (a start that failed, a server gone), with stderr. */
  private failure: string | undefined;
  private connection: McpConnection | undefined;
  /** The connection a try is making, until it is ready or fails (its pid is in status()). */
  private connecting: McpConnection | undefined;
  /** The SDK client and its error readers, loaded at the first connect (load-client.ts). */
  private client: McpClientParts | undefined;
  private definitions: readonly ToolDefinition[] = [];
  /** The last listing's definitions by what the server sent for each (see applyListing). */
  private mapped = new Map<string, ToolDefinition>();
  private offered = new Set<string>();
  private truncated = false;
  private lastListError: string | undefined;
  private lastStderr = "";
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<(event: McpSourceEvent) => void>();
  /** The try in flight, if any (single flight: start() and the retry timer join it). */
  private attempt: Promise<void> | undefined;
  private startAbort: AbortController | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAt: number | undefined;
  private readonly backoff: Backoff;
  /** Whether the server was ever ready: a first start may take `startupTimeoutMs`, a reconnect `connectTimeoutMs`. */
  private everReady = false;
  private everTried = false;
  private readyAt = 0;
  private readonly slots: CallSlots;
  private readonly breaker: CircuitBreaker;
  private health: Promise<boolean> | undefined;
  private relistTimer: NodeJS.Timeout | undefined;
  private relisting = false;
  /** A `tools/list_changed` arrived that no listing started since has answered. */
  private relistPending = false;
  /** When the last listing (at connect or a re-list) started; spaces re-lists by `minRelistIntervalMs`. */
  private lastListStart = 0;
  /** Connections being shut down (a server gone, a reconnect); close() waits for them. */
  private readonly closing = new Set<Promise<void>>();
  private readonly events: ConnectionEvents = {
    closed: (connection) => this.onClosed(connection),
    error: (connection, error) => this.onError(connection, error),
    toolsChanged: (connection) => {
      if (connection === this.connection && this.state === "ready") this.scheduleRelist();
    },
  };
  private readonly callByName = (originalName: string, args: Record<string, unknown>, ctx: ToolContext) => this.call(originalName, args, ctx);

  constructor(config: McpServerConfig, options?: McpServerOptions) {
    this.config = resolveMcpConfig(config);
    this.toolset = this.config.name;
    this.options = resolveMcpOptions(options, this.config);
    const retry = { minMs: this.options.retryMinDelayMs, maxMs: this.options.retryMaxDelayMs };
    this.backoff = new Backoff(retry);
    this.slots = new CallSlots(
      {
        maxConcurrent: this.options.maxConcurrentCalls,
        maxQueuedPerTenant: this.options.maxQueuedCallsPerTenant,
        maxQueued: this.options.maxQueuedCallsPerTenant * QUEUED_CALLS_PER_SERVER_SHARES,
      },
      this.label(),
    );
    this.breaker = new CircuitBreaker(this.options.breakerTimeouts, retry, this.label(), {
      probe: () => this.probe(),
      opened: (reason, retryInMs) => {
        this.slots.failWaiting((id) => new ToolUnavailableError(id, reason));
        this.emit({ kind: "breaker-open", reason, retryInMs });
      },
      closed: () => this.emit({ kind: "breaker-closed" }),
    });
  }

  /**
   * Connects now (from idle, failed or gone; a try in flight is joined) and resolves when the
   * server is ready. Rejects when the try fails, with a clear message, or when `connectTimeoutMs`
   * passes first: the try then goes on in the background. Either way the source keeps trying
   * until close().
   */
  start(): Promise<void> {
    if (this.state === "closed") return Promise.reject(new ToolUnavailableError(undefined, `${this.label()} is closed; create a new source.`));
    if (this.state === "ready") return Promise.resolve();
    return this.waitFor(this.attempt ?? this.tryNow());
  }

  tools(): readonly ToolDefinition[] {
    return this.state === "ready" ? this.definitions : [];
  }

  /** Listens for changes of `tools()`; returns a function that stops listening. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listens for tries, failures and breaker changes (McpSourceEvent); returns a function that stops listening. */
  onEvent(listener: (event: McpSourceEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  unavailableReason(): string | undefined {
    if (this.state === "ready") return this.breaker.openReason();
    return this.reason ?? `${this.label()} is not connected`;
  }

  /** Why the source is not serving, for the operator (it may carry the server's stderr); undefined while it serves. */
  problem(): string | undefined {
    switch (this.state) {
      case "ready":
        return this.breaker.openReason();
      case "connecting":
        return this.failure !== undefined
          ? `${this.failure} (trying again now)`
          : `${this.label()} (${this.target()}) is still connecting; it keeps starting in the background`;
      default:
        return this.failure ?? this.unavailableReason();
    }
  }

  status(): McpSourceStatus {
    const pid = (this.connection ?? this.connecting)?.pid();
    const reason = this.unavailableReason();
    return {
      name: this.toolset,
      transport: this.config.kind,
      state: this.state,
      ...definedProps({ reason }),
      tools: this.tools().length,
      truncated: this.truncated,
      ...definedProps({ pid, lastListError: this.lastListError }),
      ...(this.stderrTail() ? { stderr: this.stderrTail() } : {}),
      failures: this.backoff.count,
      ...(this.retryAt !== undefined ? { retryInMs: Math.max(0, this.retryAt - Date.now()) } : {}),
      breaker: this.state === "ready" && this.breaker.openReason() !== undefined ? "open" : "closed",
      calls: this.slots.counts(),
    };
  }

  /** Stops trying, fails waiting calls, closes the client and ends a stdio server gently (its process group). Idempotent. */
  async close(): Promise<void> {
    if (this.state !== "closed") {
      this.state = "closed";
      this.reason = `${this.label()} is closed`;
      this.cancelRetry();
      this.cancelRelist();
      this.breaker.stop();
      this.slots.failWaiting((id) => new ToolUnavailableError(id, `${this.label()} is closed`));
      this.startAbort?.abort(new ToolUnavailableError(undefined, `${this.label()} was closed while connecting`));
      this.retire(this.connection);
      this.connection = undefined;
      this.definitions = [];
      this.mapped = new Map();
      this.offered = new Set();
    }
    await this.attempt?.catch(() => {});
    while (this.closing.size > 0) await Promise.allSettled([...this.closing]);
  }

  // ── trying ─────────────────────────────────────────────────────────────────────────────────

  /** Starts a try now (a scheduled one is cancelled); the promise settles when it has. */
  private tryNow(): Promise<void> {
    this.cancelRetry();
    const attempt = this.backoff.count + 1;
    const first = !this.everTried;
    const firstReady = !this.everReady;
    this.everTried = true;
    const started = Date.now();
    this.emit({ kind: "connecting", attempt, first });
    const trying = this.connect().then(
      () => this.emit({ kind: "ready", attempt, first: firstReady, ms: Date.now() - started, tools: this.definitions.length }),
      (error: unknown) => {
        if (this.state !== "closed") this.emit({ kind: "failed", attempt, reason: (error as Error).message, retryInMs: this.scheduleRetry() });
        throw error;
      },
    );
    const tracked: Promise<void> = trying.finally(() => {
      if (this.attempt === tracked) this.attempt = undefined;
    });
    this.attempt = tracked;
    // The try's failure is told by events and status; start() callers get it through waitFor.
    tracked.catch(() => {});
    return tracked;
  }

  /** The try's outcome, or a rejection once `connectTimeoutMs` passes first (the try goes on). */
  private waitFor(attempt: Promise<void>): Promise<void> {
    const ms = this.options.connectTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.emit({ kind: "slow", afterMs: ms });
        reject(
          new ToolUnavailableError(
            undefined,
            `${this.label()} (${this.target()}) is still connecting after ${ms} ms (connectTimeoutMs); it keeps starting in the background for up to ${this.attemptBound()} ms`,
          ),
        );
      }, ms);
      attempt.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error as Error);
        },
      );
    });
  }

  /** Schedules the next try after the backoff's delay; returns the delay. */
  private scheduleRetry(): number {
    this.cancelRetry();
    const delay = this.backoff.next();
    this.retryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.retryAt = undefined;
      if (this.state === "failed" || this.state === "gone") void this.tryNow();
    }, delay);
    // A source left unclosed does not keep the process alive only to try its server again.
    this.retryTimer.unref();
    return delay;
  }

  private cancelRetry(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryAt = undefined;
  }

  /** A first start may install packages (`startupTimeoutMs`); a server that was up before reconnects within `connectTimeoutMs`. */
  private attemptBound(): number {
    return this.everReady ? this.options.connectTimeoutMs : this.options.startupTimeoutMs;
  }

  private async connect(): Promise<void> {
    const sdk = await this.loadClient();
    const previous = this.connection;
    this.connection = undefined;
    const wasReady = this.setUnavailable("connecting", `${this.label()} is connecting`);
    if (wasReady) this.notify();
    this.retire(previous);
    await Promise.allSettled([...this.closing]);
    this.lastStderr = "";

    const ms = this.attemptBound();
    const option = this.everReady ? "connectTimeoutMs" : "startupTimeoutMs";
    const abort = new AbortController();
    this.startAbort = abort;
    const timer = setTimeout(() => abort.abort(new StartTimeout(`did not connect and list its tools within ${ms} ms (${option})`)), ms);
    const connection = sdk.McpConnection.create(this.config, this.options, this.events);
    this.connecting = connection;
    let listing: ToolListing;
    try {
      if (this.isClosed()) throw abort.signal.reason;
      await untilAborted(connection.connect(abort.signal, ms), abort.signal);
      this.lastListStart = Date.now();
      listing = await untilAborted(connection.listAllTools(abort.signal, ms), abort.signal);
    } catch (error) {
      this.lastStderr = connection.stderrTail() || this.lastStderr;
      // Stopped gently (a stdio server's whole process group): a start cut short mid-install must not break npm's cache.
      this.retire(connection);
      await Promise.allSettled([...this.closing]);
      const reason = abort.signal.aborted ? abort.signal.reason : error;
      if (this.isClosed()) throw new ToolUnavailableError(undefined, `${this.label()} was closed while connecting`);
      const detail = reason instanceof StartTimeout ? reason.message : `could not start: ${bounded(describeError(reason))}`;
      this.setUnavailable("failed", `${this.label()} is down (${reason instanceof StartTimeout ? "connect timeout" : "could not connect"})`);
      const stderr = this.stderrTail();
      this.failure = `${this.label()} (${this.target()}) ${detail}${stderr ? `; its stderr ends: ${stderr}` : ""}`;
      throw new ToolUnavailableError(undefined, this.failure, { cause: reason });
    } finally {
      clearTimeout(timer);
      if (this.startAbort === abort) this.startAbort = undefined;
      if (this.connecting === connection) this.connecting = undefined;
    }
    this.connection = connection;
    this.state = "ready";
    this.reason = undefined;
    this.failure = undefined;
    this.lastListError = undefined;
    this.everReady = true;
    this.readyAt = Date.now();
    this.breaker.reset();
    this.applyListing(listing);
    this.notify();
  }

  private async loadClient(): Promise<McpClientParts> {
    try {
      return (this.client ??= await loadMcpClient());
    } catch (error) {
      this.setUnavailable("failed", `${this.label()} is down (the MCP SDK did not load)`);
      this.failure = `${this.label()} could not start: the MCP SDK did not load: ${bounded(describeError(error))}`;
      throw new ToolUnavailableError(undefined, this.failure, { cause: error });
    }
  }

  /** The SDK's error readers: only a connection's errors are read, and a connection exists only once they are loaded. */
  private get sdk(): McpClientParts {
    if (this.client === undefined) throw new InternalError("the MCP client was used before it was loaded");
    return this.client;
  }

  // ── the server going away ──────────────────────────────────────────────────────────────────

  private onClosed(connection: McpConnection): void {
    if (connection !== this.connection || this.state !== "ready") return;
    this.lastStderr = connection.stderrTail() || this.lastStderr;
    this.markGone(connection, connection.kind === "stdio" ? `${this.label()} exited` : `the connection to ${this.label()} closed`);
  }

  private onError(connection: McpConnection, error: Error): void {
    // stdio reports a dead child by closing, reliably; its errors (junk on stdout, EPIPE before
    // the close) do not mean much alone. Over HTTP an error (the notification stream broke, a
    // request failed) is the only sign of a server gone, so it is checked with a ping.
    if (connection !== this.connection || this.state !== "ready" || connection.kind !== "http") return;
    // An answer dropped for its size came from a server that is there.
    if (this.sdk.messageLimitOf(error) !== undefined) return;
    void this.checkHealth(connection);
  }

  /** Pings once (single flight); a ping that cannot reach the server, or times out, means gone. */
  private checkHealth(connection: McpConnection): Promise<boolean> {
    this.health ??= (async () => {
      try {
        await connection.ping(this.options.healthCheckTimeoutMs);
        return true;
      } catch (error) {
        if (!this.sdk.isConnectionError(error) && !this.sdk.isTimeoutError(error)) return true; // it answered, with an error
        this.markGone(connection, `${this.label()} stopped answering (${this.sdk.isTimeoutError(error) ? "ping timed out" : bounded(describeError(error))})`);
        return false;
      } finally {
        this.health = undefined;
      }
    })();
    return this.health;
  }

  /** The open breaker's probe: true when the server answers a ping (with an error of its own too). */
  private async probe(): Promise<boolean> {
    const connection = this.connection;
    if (!connection || this.state !== "ready") return true;
    try {
      await connection.ping(this.options.healthCheckTimeoutMs);
      return true;
    } catch (error) {
      if (this.sdk.isTimeoutError(error)) return false;
      if (this.sdk.isConnectionError(error)) this.markGone(connection, `${this.label()} stopped answering (${bounded(describeError(error))})`);
      return true;
    }
  }

  private markGone(connection: McpConnection, reason: string): void {
    if (connection !== this.connection || this.state !== "ready") return;
    this.connection = undefined;
    this.setUnavailable("gone", reason);
    // Closing rejects whatever is still in flight on it (they become TOOL_UNAVAILABLE) and stops its streams.
    this.retire(connection);
    this.slots.failWaiting((id) => new ToolUnavailableError(id, reason));
    this.breaker.reset();
    // A connection that did not last as long as the longest delay does not count as a success: a
    // server that exits soon after each start is tried less and less often, not in a loop.
    if (Date.now() - this.readyAt >= this.options.retryMaxDelayMs) this.backoff.reset();
    const stderr = this.stderrTail();
    this.failure = `${reason}${stderr ? `; its stderr ends: ${stderr}` : ""}`;
    const retryInMs = this.scheduleRetry();
    this.notify();
    this.emit({ kind: "gone", reason: this.failure, retryInMs });
  }

  // ── listing ────────────────────────────────────────────────────────────────────────────────

  /**
   * A `tools/list_changed` only marks a re-list as pending. At most one re-list runs at a time
   * and at most one waits; it starts after the debounce and no sooner than `minRelistIntervalMs`
   * after the previous listing started. The parent is shared by every session of a gateway, so
   * a server that floods notifications must cost a bounded amount of work: one re-list (and one
   * catalog rebuild and re-index, if the list changed) per interval, whatever the rate.
   */
  private scheduleRelist(): void {
    this.relistPending = true;
    // A re-list in flight schedules the next one when it ends; a timer already set will run it.
    if (this.relisting || this.relistTimer !== undefined) return;
    const sinceLast = Date.now() - this.lastListStart;
    const wait = Math.max(this.options.listChangedDebounceMs, this.options.minRelistIntervalMs - sinceLast);
    this.relistTimer = setTimeout(() => {
      this.relistTimer = undefined;
      void this.relist();
    }, wait);
  }

  private async relist(): Promise<void> {
    const connection = this.connection;
    if (!connection || this.state !== "ready" || !this.relistPending) return;
    this.relistPending = false;
    this.relisting = true;
    this.lastListStart = Date.now();
    try {
      // One deadline for every page: a server handing out endless cursors cannot keep it going.
      const listing = await connection.listAllTools(AbortSignal.timeout(this.options.connectTimeoutMs), this.options.connectTimeoutMs);
      // Mapped a slice at a time, off the task that parsed the message: thousands of tools must
      // not hold the event loop every session shares. The source may change meanwhile: checked after.
      const mapped = await this.mapListing(listing);
      if (connection === this.connection && this.state === "ready") {
        this.lastListError = undefined;
        if (this.commitListing(mapped)) this.notify();
      }
    } catch (error) {
      if (connection !== this.connection) return;
      this.lastListError = bounded(this.listFailure(error));
      if (connection.kind === "http" && (this.sdk.isConnectionError(error) || this.sdk.isTimeoutError(error))) await this.checkHealth(connection);
    } finally {
      this.relisting = false;
      if (this.relistPending && this.state === "ready") this.scheduleRelist();
    }
  }

  /** For `lastListError`: what went wrong, in words. */
  private listFailure(error: unknown): string {
    const limit = this.sdk.messageLimitOf(error);
    if (limit === undefined) return describeError(error);
    return `a tools/list answer was larger than maxMessageBytes (${limit} bytes) and was dropped unread; the previous list is kept`;
  }

  /**
   * Maps and bounds the listing; returns whether `tools()` changed. A tool sent exactly as
   * before keeps its definition object: it is not mapped (nor its schema checked) again, and the
   * catalog, which caches entries and search docs by definition, does not re-check it either.
   * An unchanged listing is then one JSON.stringify per tool, and no notification.
   */
  private applyListing(listing: ToolListing): boolean {
    return this.commitListing(mapListingNow(this.mapListingPlan(listing)));
  }

  /** The same mapping as applyListing, giving the event loop back every MAP_SLICE tools. */
  private async mapListing(listing: ToolListing): Promise<MappedListing> {
    const plan = this.mapListingPlan(listing);
    const definitions: ToolDefinition[] = [];
    for (let start = 0; start < plan.callable.length; start += MAP_SLICE) {
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = start; i < Math.min(start + MAP_SLICE, plan.callable.length); i++) definitions.push(plan.map(i));
    }
    return { callable: plan.callable, definitions, known: plan.known };
  }

  private mapListingPlan(listing: ToolListing): ListingPlan {
    this.truncated = listing.truncated;
    // A tool that requires task-based execution cannot be called with tools/call; it is left out.
    const seen = new Set<string>();
    const callable = listing.tools.filter((tool) => {
      if (tool.execution?.taskSupport === "required" || seen.has(tool.name)) return false;
      seen.add(tool.name);
      return true;
    });
    const names = mapToolNames(callable.map((tool) => tool.name));
    const limits = { maxDescriptionChars: this.options.maxDescriptionChars, maxSchemaBytes: this.options.maxSchemaBytes };
    const known = new Map<string, ToolDefinition>();
    const previous = this.mapped;
    const map = (i: number): ToolDefinition => {
      const tool = callable[i]!;
      const name = names.get(tool.name)!;
      const key = listingKey(tool, name);
      const definition = previous.get(key) ?? mapTool(tool, name, limits, this.callByName);
      known.set(key, definition);
      return definition;
    };
    return { callable, known, map };
  }

  /** Installs a mapped listing; returns whether `tools()` changed. */
  private commitListing({ callable, definitions, known }: MappedListing): boolean {
    this.mapped = known;
    const changed = definitions.length !== this.definitions.length || definitions.some((definition, i) => definition !== this.definitions[i]);
    if (!changed) return false;
    this.definitions = Object.freeze(definitions);
    this.offered = new Set(callable.map((tool) => tool.name));
    return true;
  }

  // ── calling ────────────────────────────────────────────────────────────────────────────────

  /**
   * One call: a slot of the server's (shared by tenants, call-slots.ts), then tools/call. The
   * outcome feeds the circuit breaker: a timeout counts against the server, any answer for it.
   */
  private async call(originalName: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    this.callable(originalName, ctx);
    const release = await this.slots.acquire(ctx.tenant, ctx.id, ctx.signal);
    try {
      // The server may have gone, or its breaker opened, while the call waited.
      const connection = this.callable(originalName, ctx);
      let result;
      try {
        result = await connection.callTool(originalName, args, ctx.signal, this.options.callTimeoutMs);
      } catch (error) {
        this.recordOutcome(error, ctx);
        throw await this.callFailure(error, connection, originalName, ctx);
      }
      this.breaker.answered();
      return interpretCallResult(result, `MCP tool "${originalName}" of ${this.label()}`);
    } finally {
      release();
    }
  }

  /** The live connection when `originalName` can be called now; else TOOL_UNAVAILABLE saying why. */
  private callable(originalName: string, ctx: ToolContext): McpConnection {
    const connection = this.connection;
    if (this.state !== "ready" || !connection) throw new ToolUnavailableError(ctx.id, this.unavailableReason() ?? `${this.label()} is not connected`);
    const open = this.breaker.openReason();
    if (open !== undefined) throw new ToolUnavailableError(ctx.id, open);
    if (!this.offered.has(originalName)) throw new ToolUnavailableError(ctx.id, `${this.label()} no longer offers the tool "${originalName}"`);
    return connection;
  }

  /** Tells the breaker how a sent call ended: timed out (the SDK's deadline or the engine's), or answered by the server. */
  private recordOutcome(error: unknown, ctx: ToolContext): void {
    if (ctx.signal.aborted) {
      if (ctx.signal.reason instanceof ToolTimeoutError) this.breaker.timedOut();
      return;
    }
    if (this.sdk.isTimeoutError(error)) this.breaker.timedOut();
    else if (!this.sdk.isConnectionError(error)) this.breaker.answered();
  }

  private async callFailure(error: unknown, connection: McpConnection, originalName: string, ctx: ToolContext): Promise<Error> {
    if (ctx.signal.aborted) {
      const reason: unknown = ctx.signal.reason;
      return reason instanceof Error ? reason : new ToolFailedError(`The call of "${originalName}" on ${this.label()} was cancelled.`);
    }
    const limit = this.sdk.messageLimitOf(error);
    if (limit !== undefined) {
      return new ToolFailedError(
        `${this.label()} answered the call of "${originalName}" with more than ${limit} bytes (maxMessageBytes); the answer was dropped unread.`,
        { cause: error },
      );
    }
    if (connection === this.connection && connection.kind === "http" && this.sdk.isConnectionError(error)) await this.checkHealth(connection);
    if (connection !== this.connection || this.state !== "ready") {
      return new ToolUnavailableError(
        ctx.id,
        this.state === "ready" ? `${this.label()} reconnected during the call; try again` : (this.unavailableReason() ?? `${this.label()} went away`),
      );
    }
    if (this.sdk.isTimeoutError(error)) {
      return new ToolTimeoutError(`${this.label()} did not answer the call of "${originalName}" within ${this.options.callTimeoutMs} ms.`);
    }
    return new ToolFailedError(`${this.label()} could not run "${originalName}": ${bounded(describeError(error))}`, { cause: error });
  }

  // ── helpers ────────────────────────────────────────────────────────────────────────────────

  /** Leaves `state`; returns whether it was ready. Empties the tool list. */
  private setUnavailable(state: "connecting" | "failed" | "gone", reason: string): boolean {
    const wasReady = this.state === "ready" && this.definitions.length > 0;
    this.state = state;
    this.reason = reason;
    this.cancelRelist();
    this.definitions = [];
    this.offered = new Set();
    return wasReady;
  }

  /** Forgets a pending re-list: the next connection lists its tools when it connects. */
  private cancelRelist(): void {
    clearTimeout(this.relistTimer);
    this.relistTimer = undefined;
    this.relistPending = false;
  }

  /** Starts closing a connection no longer in use; close() and reconnects wait for it. */
  private retire(connection: McpConnection | undefined): void {
    if (!connection) return;
    const done = connection.close().finally(() => {
      this.lastStderr = connection.stderrTail() || this.lastStderr;
      this.closing.delete(done);
    });
    this.closing.add(done);
  }

  private emit(event: McpSourceEvent): void {
    for (const listener of [...this.eventListeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the others still hear the event.
      }
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the others still hear the change.
      }
    }
  }

  private isClosed(): boolean {
    return this.state === "closed";
  }

  private stderrTail(): string {
    return this.connection?.stderrTail() || this.lastStderr;
  }

  private label(): string {
    return `MCP server "${this.toolset}"`;
  }

  /** For operator messages: the program (not its arguments, which may hold secrets) or the URL without query. */
  private target(): string {
    if (this.config.kind === "stdio") return `stdio: ${this.config.command.split(/[\\/]/).pop() ?? this.config.command}`;
    return `${this.config.url.origin}${this.config.url.pathname}`;
  }
}

/** The connect deadline's abort reason; connect() reports it as a connect timeout (TOOL_UNAVAILABLE). */
class StartTimeout extends ToolUnavailableError {
  constructor(message: string) {
    super(undefined, message);
  }
}

/** Tools mapped between two yields of a re-list (a few milliseconds of work). */
const MAP_SLICE = 250;

interface ListingPlan {
  callable: Tool[];
  known: Map<string, ToolDefinition>;
  /** Maps the i-th callable tool (reusing the definition of a tool sent exactly as before). */
  map(i: number): ToolDefinition;
}

interface MappedListing {
  callable: Tool[];
  definitions: ToolDefinition[];
  known: Map<string, ToolDefinition>;
}

function mapListingNow(plan: ListingPlan): MappedListing {
  return { callable: plan.callable, definitions: plan.callable.map((_, i) => plan.map(i)), known: plan.known };
}

/** Everything mapTool reads from a tool, and the catalog name it gets: equal keys, equal definitions. */
function listingKey(tool: Tool, catalogName: string): string {
  return JSON.stringify([
    catalogName,
    tool.name,
    tool.title ?? null,
    tool.description ?? null,
    tool.inputSchema,
    tool.outputSchema ?? null,
    tool.annotations ?? null,
  ]);
}

/** Rejects with the signal's reason as soon as it aborts, whether or not `promise` honours it. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const off = onAbort(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        off();
        resolve(value);
      },
      (error: unknown) => {
        off();
        reject(error);
      },
    );
  });
}

function bounded(text: string): string {
  return truncate(stripControl(text).replace(/\s+/g, " ").trim(), MAX_SERVER_TEXT);
}
