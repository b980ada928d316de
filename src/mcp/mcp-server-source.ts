/**
 * An MCP server as a catalog source: ids `mcp:<name>:<tool>`.
 *
 * Lifecycle (one state at a time):
 *   idle ──start()──▶ connecting ──▶ ready ──(server exits / stops answering)──▶ gone
 *                        │                                                       │
 *                        └──(down, timeout)──▶ failed ◀──────start() again───────┘
 *   any ──close()──▶ closed
 * `start()` from failed or gone reconnects (the catalog's `revive` does this on a later run),
 * closing the old client and child first. In every state but ready, `tools()` is empty and
 * `unavailableReason()` says why; calls fail with TOOL_UNAVAILABLE. Listeners hear every
 * change of `tools()` (a server gone, a re-list after `tools/list_changed`, a reconnect).
 *
 * Messages: `unavailableReason()` reaches the model (inside TOOL_UNAVAILABLE), so it is short and
 * names neither the command's arguments nor the URL's query; the error `start()` throws is for
 * the operator (the catalog's source status) and carries the child's last stderr lines.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { onAbort } from "../abort-listeners.js";
import type { CatalogSource } from "../catalog/sources.js";
import type { ToolContext, ToolDefinition } from "../catalog/types.js";
import { stripControl, truncate } from "../text/prompt-text.js";
import { ToolFailedError, ToolTimeoutError, ToolUnavailableError } from "../errors.js";
import { interpretCallResult } from "./call-result.js";
import { McpConnection, type ConnectionEvents, type ToolListing } from "./connection.js";
import { describeError, isConnectionError, isTimeoutError } from "./errors.js";
import { mapTool } from "./map-tool.js";
import { messageLimitOf } from "./message-limit.js";
import {
  resolveMcpConfig,
  resolveMcpOptions,
  type McpServerConfig,
  type McpServerOptions,
  type ResolvedMcpConfig,
  type ResolvedMcpOptions,
} from "./options.js";
import { mapToolNames } from "./tool-names.js";

export type McpSourceState = "idle" | "connecting" | "ready" | "failed" | "gone" | "closed";

/** A snapshot for operators and tests. */
export interface McpSourceStatus {
  name: string;
  transport: "stdio" | "http";
  state: McpSourceState;
  /** Why the source is not serving, when it is not. */
  reason?: string;
  tools: number;
  /** The server offered more than `maxTools` tools; the rest were left out. */
  truncated: boolean;
  /** stdio: the child's pid while it runs. */
  pid?: number;
  /** The last failed re-list after `tools/list_changed` (the previous list was kept). */
  lastListError?: string;
  /** stdio with stderr "capture": the child's last stderr lines. */
  stderr?: string;
}

const MAX_SERVER_TEXT = 1_000;

export class McpServerSource implements CatalogSource {
  readonly source = "mcp" as const;
  readonly toolset: string;
  private readonly config: ResolvedMcpConfig;
  private readonly options: ResolvedMcpOptions;
  private state: McpSourceState = "idle";
  private reason: string | undefined;
  private connection: McpConnection | undefined;
  private definitions: readonly ToolDefinition[] = [];
  /** The last listing's definitions by what the server sent for each (see applyListing). */
  private mapped = new Map<string, ToolDefinition>();
  private offered = new Set<string>();
  private truncated = false;
  private lastListError: string | undefined;
  private lastStderr = "";
  private readonly listeners = new Set<() => void>();
  private starting: Promise<void> | undefined;
  private startAbort: AbortController | undefined;
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
    this.options = resolveMcpOptions(options, this.config.name);
  }

  /** Connects and lists every tool; from failed or gone, reconnects. Throws a clear message when the server is down. */
  start(): Promise<void> {
    if (this.state === "closed") return Promise.reject(new ToolUnavailableError(undefined, `${this.label()} is closed; create a new source.`));
    if (this.state === "ready") return Promise.resolve();
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  tools(): readonly ToolDefinition[] {
    return this.state === "ready" ? this.definitions : [];
  }

  /** Listens for changes of `tools()`; returns a function that stops listening. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  unavailableReason(): string | undefined {
    return this.state === "ready" ? undefined : (this.reason ?? `${this.label()} is not connected`);
  }

  status(): McpSourceStatus {
    const pid = this.connection?.pid();
    const reason = this.unavailableReason();
    return {
      name: this.toolset,
      transport: this.config.kind,
      state: this.state,
      ...(reason !== undefined ? { reason } : {}),
      tools: this.tools().length,
      truncated: this.truncated,
      ...(pid !== undefined ? { pid } : {}),
      ...(this.lastListError !== undefined ? { lastListError: this.lastListError } : {}),
      ...(this.stderrTail() ? { stderr: this.stderrTail() } : {}),
    };
  }

  /** Closes the client and ends a stdio child (stdin closed, then SIGTERM, then SIGKILL). Idempotent. */
  async close(): Promise<void> {
    if (this.state !== "closed") {
      this.state = "closed";
      this.reason = `${this.label()} is closed`;
      this.cancelRelist();
      this.startAbort?.abort(new ToolUnavailableError(undefined, `${this.label()} was closed while connecting`));
      this.retire(this.connection);
      this.connection = undefined;
      this.definitions = [];
      this.mapped = new Map();
      this.offered = new Set();
    }
    await this.starting?.catch(() => {});
    while (this.closing.size > 0) await Promise.allSettled([...this.closing]);
  }

  // ── connecting ─────────────────────────────────────────────────────────────────────────────

  private async connect(): Promise<void> {
    const previous = this.connection;
    this.connection = undefined;
    const wasReady = this.setUnavailable("connecting", `${this.label()} is connecting`);
    if (wasReady) this.notify();
    this.retire(previous);
    await Promise.allSettled([...this.closing]);
    this.lastStderr = "";

    const ms = this.options.connectTimeoutMs;
    const abort = new AbortController();
    this.startAbort = abort;
    const timer = setTimeout(() => abort.abort(new StartTimeout(`did not connect and list its tools within ${ms} ms`)), ms);
    const connection = McpConnection.create(this.config, this.options, this.events);
    let listing: ToolListing;
    try {
      if (this.isClosed()) throw abort.signal.reason;
      await untilAborted(connection.connect(abort.signal), abort.signal);
      this.lastListStart = Date.now();
      listing = await untilAborted(connection.listAllTools(abort.signal, ms), abort.signal);
    } catch (error) {
      this.lastStderr = connection.stderrTail() || this.lastStderr;
      this.retire(connection);
      await Promise.allSettled([...this.closing]);
      const reason = abort.signal.aborted ? abort.signal.reason : error;
      if (this.isClosed()) throw new ToolUnavailableError(undefined, `${this.label()} was closed while connecting`);
      const detail = reason instanceof StartTimeout ? reason.message : `could not start: ${bounded(describeError(reason))}`;
      this.setUnavailable("failed", `${this.label()} is down (${reason instanceof StartTimeout ? "connect timeout" : "could not connect"})`);
      const stderr = this.stderrTail();
      throw new ToolUnavailableError(undefined, `${this.label()} (${this.target()}) ${detail}${stderr ? `; its stderr ends: ${stderr}` : ""}`, {
        cause: reason,
      });
    } finally {
      clearTimeout(timer);
      if (this.startAbort === abort) this.startAbort = undefined;
    }
    this.connection = connection;
    this.state = "ready";
    this.reason = undefined;
    this.lastListError = undefined;
    this.applyListing(listing);
    // Listeners hear a reconnect (the first start has none yet: the catalog subscribes after it).
    this.notify();
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
    if (messageLimitOf(error) !== undefined) return;
    void this.checkHealth(connection);
  }

  /** Pings once (single flight); a ping that cannot reach the server, or times out, means gone. */
  private checkHealth(connection: McpConnection): Promise<boolean> {
    this.health ??= (async () => {
      try {
        await connection.ping(this.options.healthCheckTimeoutMs);
        return true;
      } catch (error) {
        if (!isConnectionError(error) && !isTimeoutError(error)) return true; // it answered, with an error
        this.markGone(connection, `${this.label()} stopped answering (${isTimeoutError(error) ? "ping timed out" : bounded(describeError(error))})`);
        return false;
      } finally {
        this.health = undefined;
      }
    })();
    return this.health;
  }

  private markGone(connection: McpConnection, reason: string): void {
    if (connection !== this.connection || this.state !== "ready") return;
    this.connection = undefined;
    this.setUnavailable("gone", reason);
    // Closing rejects whatever is still in flight on it (they become TOOL_UNAVAILABLE) and stops its streams.
    this.retire(connection);
    this.notify();
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
      if (connection.kind === "http" && (isConnectionError(error) || isTimeoutError(error))) await this.checkHealth(connection);
    } finally {
      this.relisting = false;
      if (this.relistPending && this.state === "ready") this.scheduleRelist();
    }
  }

  /** For `lastListError`: what went wrong, in words. */
  private listFailure(error: unknown): string {
    const limit = messageLimitOf(error);
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

  private async call(originalName: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const connection = this.connection;
    if (this.state !== "ready" || !connection) throw new ToolUnavailableError(ctx.id, this.unavailableReason() ?? `${this.label()} is not connected`);
    if (!this.offered.has(originalName)) throw new ToolUnavailableError(ctx.id, `${this.label()} no longer offers the tool "${originalName}"`);
    let result;
    try {
      result = await connection.callTool(originalName, args, ctx.signal, this.options.callTimeoutMs);
    } catch (error) {
      throw await this.callFailure(error, connection, originalName, ctx);
    }
    return interpretCallResult(result, `MCP tool "${originalName}" of ${this.label()}`);
  }

  private async callFailure(error: unknown, connection: McpConnection, originalName: string, ctx: ToolContext): Promise<Error> {
    if (ctx.signal.aborted) {
      const reason: unknown = ctx.signal.reason;
      return reason instanceof Error ? reason : new ToolFailedError(`The call of "${originalName}" on ${this.label()} was cancelled.`);
    }
    const limit = messageLimitOf(error);
    if (limit !== undefined) {
      return new ToolFailedError(
        `${this.label()} answered the call of "${originalName}" with more than ${limit} bytes (maxMessageBytes); the answer was dropped unread.`,
        { cause: error },
      );
    }
    if (connection === this.connection && connection.kind === "http" && isConnectionError(error)) await this.checkHealth(connection);
    if (connection !== this.connection || this.state !== "ready") {
      return new ToolUnavailableError(
        ctx.id,
        this.state === "ready" ? `${this.label()} reconnected during the call; try again` : (this.unavailableReason() ?? `${this.label()} went away`),
      );
    }
    if (isTimeoutError(error)) {
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
