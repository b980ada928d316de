/**
 * The operator's OpenTelemetry metrics, recorded through `@opentelemetry/api` on a meter the
 * SDK provides (metrics-sdk.ts). Names follow the semantic conventions where they exist — HTTP
 * (`http.server.request.duration`, `http.server.active_requests`), MCP (`mcp.client.operation.duration`
 * for calls to downstream MCP servers) and GenAI's attribute names — and are `toolsearch.*`
 * otherwise. Durations are in seconds, sizes in bytes, as the conventions ask.
 *
 * Fed by the engine's session events (one O(1) record each), the faces' requests, and, when a
 * reader collects, callbacks that read the state (pool, catalog, MCP servers, learning,
 * sessions). Every attribute comes from a closed set or from the config — modes, sources,
 * error codes, MCP server names, token labels — never from a caller's text: a tenant that is not
 * a token (a session, an address) is counted as "other", so no one can mint series.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Attributes, BatchObservableResult, Counter, Histogram, Meter, ObservableGauge, UpDownCounter } from "@opentelemetry/api";
import type { ToolSearchEngine } from "../engine/engine.js";
import type { McpServerSource } from "../mcp/index.js";
import type { PoolLoad } from "../sandbox/types.js";
import type { SessionEvent, SessionLogSink } from "../telemetry/types.js";
import { definedProps } from "../defined.js";
import { LruMap } from "../validation/lru.js";
import { IgnoredRuns } from "../telemetry/ignored-runs.js";

/** HTTP semantic conventions' advice for http.server.request.duration. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** A search is sub-millisecond to tens of milliseconds. */
const SEARCH_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** A run (an agent turn) and a code body take from milliseconds to minutes. */
const RUN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** What a run shows up front: a kilobyte in code mode, megabytes in direct mode over a big catalog. */
const BYTE_BUCKETS = [512, 1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864];

/** Runs whose start events were seen and not yet their end: bounded like live telemetry's. */
const MAX_OPEN_RUNS = 10_000;

/** The routes a request is counted under (`http.route`): the faces' fixed ones; anything else has none. */
const ROUTES = ["/v1/runs", "/healthz", "/mcp", "/metrics"];
const ADMIN_ROUTES = new Set(["catalog", "tools", "search", "telemetry", "tenants", "sandbox", "mcp-servers", "learning", "learning/words"]);

export function routeOf(path: string): string | undefined {
  if (ROUTES.includes(path)) return path;
  if (path === "/console" || path.startsWith("/console/")) return "/console/*";
  if (path === "/admin/v1" || path === "/admin/v1/") return "/admin/v1";
  if (path.startsWith("/admin/v1/")) {
    const name = path.slice("/admin/v1/".length).replace(/\/+$/, "");
    return ADMIN_ROUTES.has(name) ? `/admin/v1/${name}` : undefined;
  }
  return undefined;
}

/** What the metrics read when collected: the face's engine and sources, and its sessions (`mcp --http`). */
export interface MetricsState {
  engine: ToolSearchEngine;
  mcpSources: readonly McpServerSource[];
  sessions?: (() => ReadonlyArray<{ tenant: string }>) | undefined;
}

/** A tenant as an attribute: one of the config's token tenants (bounded by gateway.auth.tokens), else "other". */
export function tenantAttribute(tenant: string | undefined, known: ReadonlySet<string>): string {
  return tenant !== undefined && known.has(tenant) ? tenant : "other";
}

export class OperatorMetrics implements SessionLogSink {
  private readonly requestDuration: Histogram;
  private readonly activeRequests: UpDownCounter;
  private readonly runs: Counter;
  private readonly runDuration: Histogram;
  private readonly upfrontSize: Histogram;
  private readonly directSize: Histogram;
  private readonly searchDuration: Histogram;
  private readonly describes: Counter;
  private readonly callDuration: Histogram;
  private readonly mcpCallDuration: Histogram;
  private readonly codeDuration: Histogram;
  /** runId → when it started (performance.now) and its mode, for run.duration. */
  private readonly open = new LruMap<string, { started: number; mode: string }>(MAX_OPEN_RUNS);
  /** The admin API's own runs, left out start to end as they are from live telemetry. */
  private readonly ignored: IgnoredRuns;
  /** The config's token tenants: the only tenant values an attribute takes. */
  private readonly tenants: ReadonlySet<string>;

  constructor(
    private readonly meter: Meter,
    private readonly options: { ignoreTenant?: string; tenants?: ReadonlySet<string> } = {},
  ) {
    this.tenants = options.tenants ?? new Set();
    this.ignored = new IgnoredRuns(options.ignoreTenant, MAX_OPEN_RUNS);
    const histogram = (name: string, description: string, unit: string, buckets: number[]) =>
      meter.createHistogram(name, { description, unit, advice: { explicitBucketBoundaries: buckets } });
    this.requestDuration = histogram("http.server.request.duration", "Duration of HTTP server requests.", "s", REQUEST_BUCKETS);
    this.activeRequests = meter.createUpDownCounter("http.server.active_requests", {
      description: "Number of active HTTP server requests.",
      unit: "{request}",
    });
    this.runs = meter.createCounter("toolsearch.runs", { description: "Runs (agent turns) prepared, by mode.", unit: "{run}" });
    this.runDuration = histogram("toolsearch.run.duration", "Duration of a run, from prepareRun to its end.", "s", RUN_BUCKETS);
    this.upfrontSize = histogram("toolsearch.run.upfront.size", "Bytes of tools and instructions a run showed the model up front.", "By", BYTE_BUCKETS);
    this.directSize = histogram(
      "toolsearch.run.direct.size",
      "Bytes of the tools direct mode would have declared for the same run's catalog.",
      "By",
      BYTE_BUCKETS,
    );
    this.searchDuration = histogram("toolsearch.search.duration", "Duration of a search (every query of a batch).", "s", SEARCH_BUCKETS);
    this.describes = meter.createCounter("toolsearch.describes", { description: "Tool descriptions asked for, by outcome.", unit: "{describe}" });
    this.callDuration = histogram("toolsearch.tool.call.duration", "Duration of a tool call through the call path, by source and outcome.", "s", RUN_BUCKETS);
    this.mcpCallDuration = histogram(
      "mcp.client.operation.duration",
      "Duration of a tools/call to a downstream MCP server, as its client saw it.",
      "s",
      REQUEST_BUCKETS,
    );
    this.codeDuration = histogram("toolsearch.code.duration", "Duration of a code-mode body, by outcome.", "s", RUN_BUCKETS);
  }

  /** Counts one HTTP request of a face (http.server.*), from now until its answer is finished or the client goes away. */
  observeRequest(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const method = methodOf(req.method);
    const common: Attributes = { "http.request.method": method, "url.scheme": "http" };
    this.activeRequests.add(1, common);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      this.activeRequests.add(-1, common);
      const route = routeOf(new URL(req.url ?? "/", "http://localhost").pathname);
      const status = res.statusCode;
      this.requestDuration.record((performance.now() - started) / 1000, {
        ...common,
        "http.response.status_code": status,
        ...definedProps({ "http.route": route }),
        ...(status >= 500 ? { "error.type": String(status) } : {}),
      });
    };
    res.once("finish", finish);
    res.once("close", finish);
  }

  write(event: SessionEvent): void {
    if (this.ignored.has(event)) return;
    switch (event.type) {
      case "run_start": {
        const attributes = { "toolsearch.mode": event.mode, "toolsearch.fallback": event.fallbackReason !== undefined };
        this.runs.add(1, attributes);
        const modeOnly = { "toolsearch.mode": event.mode };
        this.upfrontSize.record(event.upfront.toolsBytes + event.upfront.instructionsBytes, modeOnly);
        this.directSize.record(event.upfront.directBytes, modeOnly);
        this.open.set(event.runId, { started: performance.now(), mode: event.mode });
        return;
      }
      case "run_end": {
        const run = this.open.peek(event.runId);
        if (run === undefined) return;
        this.open.delete(event.runId);
        this.runDuration.record((performance.now() - run.started) / 1000, { "toolsearch.mode": run.mode });
        return;
      }
      case "search":
        this.searchDuration.record(event.ms / 1000, { "toolsearch.via": event.via });
        return;
      case "describe":
        this.describes.add(1, outcome(event.ok, event.code));
        return;
      case "call": {
        const attributes = { "toolsearch.source": event.source, "toolsearch.via": event.via, ...outcome(event.ok, event.code) };
        this.callDuration.record(event.ms / 1000, attributes);
        if (event.source === "mcp") {
          this.mcpCallDuration.record(event.ms / 1000, {
            "mcp.method.name": "tools/call",
            "gen_ai.operation.name": "execute_tool",
            "toolsearch.mcp.server": event.id.split(":", 2)[1] ?? "unknown",
            ...(event.ok ? {} : { "error.type": event.code ?? "UNKNOWN" }),
          });
        }
        return;
      }
      case "code_run":
        this.codeDuration.record(event.ms / 1000, outcome(event.ok, event.code));
    }
  }

  /** The gauges, read when a reader collects: pool and per-tenant queue, catalog, MCP servers up, learning, sessions. */
  observe(state: MetricsState): void {
    const gauge = (name: string, description: string, unit: string) => this.meter.createObservableGauge(name, { description, unit });
    const bodies = gauge("toolsearch.pool.bodies", "Code-mode bodies running or waiting for a sandbox child.", "{body}");
    const ready = gauge("toolsearch.pool.children.ready", "Sandbox children started and waiting for a body.", "{child}");
    const tenantBodies = gauge("toolsearch.pool.tenant.bodies", "Code-mode bodies running or waiting, per tenant (token label, else other).", "{body}");
    const catalogTools = gauge("toolsearch.catalog.tools", "Tools in the catalog, per source.", "{tool}");
    const serverUp = gauge("toolsearch.mcp.server.up", "1 when a configured MCP server is connected and serving, else 0.", "1");
    const learned = gauge("toolsearch.learning.records", "Learned (request word, tool) records held, all and active.", "{record}");
    const sessions = gauge("toolsearch.sessions", "MCP sessions open, per tenant (token label, else other).", "{session}");
    this.meter.addBatchObservableCallback(
      async (result) => {
        const pool = (await state.engine.sandboxState())?.load;
        if (pool !== undefined) {
          result.observe(bodies, pool.running, { "toolsearch.state": "running" });
          result.observe(bodies, pool.queued, { "toolsearch.state": "queued" });
          result.observe(ready, pool.ready);
          observeByTenant(result, tenantBodies, pool.tenants, this.tenants);
        }
        for (const source of state.engine.catalogStatus().sources) {
          result.observe(catalogTools, source.tools, { "toolsearch.source": source.source, "toolsearch.toolset": source.toolset });
        }
        for (const server of state.mcpSources) result.observe(serverUp, server.status().state === "ready" ? 1 : 0, { "toolsearch.mcp.server": server.toolset });
        const stats = state.engine.learning?.stats();
        if (stats !== undefined) {
          result.observe(learned, stats.records, { "toolsearch.state": "all" });
          result.observe(learned, stats.active, { "toolsearch.state": "active" });
        }
        if (state.sessions !== undefined) {
          const open = new Map<string, number>();
          for (const s of state.sessions()) {
            const key = tenantAttribute(s.tenant, this.tenants);
            open.set(key, (open.get(key) ?? 0) + 1);
          }
          for (const [tenant, count] of open) result.observe(sessions, count, { "toolsearch.tenant": tenant });
        }
      },
      [bodies, ready, tenantBodies, catalogTools, serverUp, learned, sessions],
    );
  }
}

/** Bodies per tenant and state, tenants that are not tokens summed as "other". */
function observeByTenant(result: BatchObservableResult, gauge: ObservableGauge, rows: PoolLoad["tenants"], known: ReadonlySet<string>): void {
  const sums = new Map<string, { running: number; queued: number }>();
  for (const row of rows) {
    const key = tenantAttribute(row.tenant, known);
    const sum = sums.get(key) ?? { running: 0, queued: 0 };
    sums.set(key, { running: sum.running + row.running, queued: sum.queued + row.queued });
  }
  for (const [key, { running, queued }] of sums) {
    result.observe(gauge, running, { "toolsearch.tenant": key, "toolsearch.state": "running" });
    result.observe(gauge, queued, { "toolsearch.tenant": key, "toolsearch.state": "queued" });
  }
}

function outcome(ok: boolean, code: string | undefined): Attributes {
  return ok ? { "toolsearch.outcome": "ok" } : { "toolsearch.outcome": "error", "error.type": code ?? "UNKNOWN" };
}

/** HTTP semconv: a method outside the known set is `_OTHER` (a caller's method string must not mint series). */
function methodOf(method: string | undefined): string {
  const known = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"];
  return method !== undefined && known.includes(method) ? method : "_OTHER";
}
