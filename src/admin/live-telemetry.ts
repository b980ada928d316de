/**
 * The operator's live view of what runs did (`GET /admin/v1/telemetry`, the console's charts):
 * the engine's session events (the same ones the JSONL log gets) folded into totals and
 * ten-second buckets, kept in memory. A sink on the hot path of every run: each event is O(1),
 * nothing grows with traffic (a fixed ring of buckets, bounded maps of tenants and open runs,
 * error codes and sources from closed sets), nothing throws, and no query text is kept.
 */
import type { SessionEvent, SessionLogSink } from "../telemetry/types.js";
import type { Latency, OutcomeCounts, TelemetryBucket, TelemetryTotals } from "./admin-wire-types.js";
import { IgnoredRuns } from "../telemetry/ignored-runs.js";
import { LruMap } from "../validation/lru.js";

/** A run while it runs: whose it is, and since when. */
interface OpenRun {
  tenant: string;
  started: number;
}

/** One tenant's activity: a token's label, else `session:<id>` (each unauthenticated session is a tenant of its own). */
export interface TenantActivity {
  tenant: string;
  runs: number;
  activeRuns: number;
  calls: { ok: number; failed: number };
  codeRuns: number;
  /** Epoch ms of its last event. */
  lastSeen: number;
}

/** A downstream MCP server's calls, as runs saw them. */
export interface ServerCalls {
  ok: number;
  failed: number;
  latency: Latency;
  /** The last failure's code and when (epoch ms). */
  lastError?: { code: string; at: number };
}

export interface LiveTelemetryOptions {
  bucketMs?: number;
  /** Buckets kept (default 360: an hour of ten-second buckets). */
  buckets?: number;
  /** Tenants remembered, least recently seen dropped first (default 1024). */
  maxTenants?: number;
  /** Runs remembered between their start and end (a caller that never ends its runs cannot grow this; default 10,000). */
  maxOpenRuns?: number;
  /** MCP servers remembered (default 256, as many as a config may name). */
  maxServers?: number;
  /** Runs of this tenant are not counted (the admin API's own playground runs). */
  ignoreTenant?: string;
  now?: () => number;
}

const latency = (): Latency => ({ count: 0, sumMs: 0, maxMs: 0 });
const outcomes = (): OutcomeCounts => ({ ok: 0, failed: 0, byCode: {} });

function add(into: Latency, ms: number): void {
  into.count += 1;
  // Microseconds are the finest a reader needs; the float noise below them is not.
  into.sumMs = Math.round((into.sumMs + ms) * 1000) / 1000;
  if (ms > into.maxMs) into.maxMs = Math.round(ms * 1000) / 1000;
}

function count(into: OutcomeCounts, ok: boolean, code: string | undefined): void {
  if (ok) into.ok += 1;
  else {
    into.failed += 1;
    const key = code ?? "UNKNOWN";
    into.byCode[key] = (into.byCode[key] ?? 0) + 1;
  }
}

export class LiveTelemetry implements SessionLogSink {
  readonly bucketMs: number;
  private readonly size: number;
  private readonly ring: Array<TelemetryBucket | undefined>;
  private readonly totals: TelemetryTotals;
  /** Tenants seen, least recently seen first. */
  private readonly tenants: LruMap<string, TenantActivity>;
  /** runId → its tenant and start, while it runs; one pushed out past the bound stops counting as active. */
  private readonly open: LruMap<string, OpenRun>;
  /** The admin API's runs are tools of the operator, not traffic: their events are left out, start to end. */
  private readonly ignored: IgnoredRuns;
  private readonly servers: LruMap<string, ServerCalls>;
  private readonly now: () => number;
  private readonly limits: { tenants: number; openRuns: number; servers: number };

  constructor(options: LiveTelemetryOptions = {}) {
    this.now = options.now ?? Date.now;
    this.bucketMs = options.bucketMs ?? 10_000;
    this.size = options.buckets ?? 360;
    this.ring = new Array<TelemetryBucket | undefined>(this.size);
    this.limits = { tenants: options.maxTenants ?? 1_024, openRuns: options.maxOpenRuns ?? 10_000, servers: options.maxServers ?? 256 };
    this.ignored = new IgnoredRuns(options.ignoreTenant, this.limits.openRuns);
    this.open = new LruMap(this.limits.openRuns, (_, run) => this.runClosed(run));
    this.tenants = new LruMap(this.limits.tenants);
    this.servers = new LruMap(this.limits.servers);
    this.totals = {
      since: new Date(this.now()).toISOString(),
      runs: { total: 0, active: 0, byMode: {}, fallbacks: 0 },
      searches: { total: 0, latency: latency() },
      describes: outcomes(),
      calls: { ...outcomes(), bySource: {}, latency: latency() },
      codeRuns: { ...outcomes(), latency: latency() },
      bytes: { upfront: 0, direct: 0 },
    };
  }

  write(event: SessionEvent): void {
    if (this.ignored.has(event)) return;
    const bucket = this.bucket();
    switch (event.type) {
      case "run_start":
        return this.runStarted(event, bucket);
      case "run_end":
        return this.runEnded(event.runId);
      case "search":
        this.totals.searches.total += 1;
        add(this.totals.searches.latency, event.ms);
        bucket.searches += 1;
        add(bucket.search, event.ms);
        return this.touch(event.runId);
      case "describe":
        count(this.totals.describes, event.ok, event.code);
        return this.touch(event.runId);
      case "call":
        return this.called(event, bucket);
      case "code_run":
        count(this.totals.codeRuns, event.ok, event.code);
        add(this.totals.codeRuns.latency, event.ms);
        bucket.codeRuns += 1;
        if (!event.ok) bucket.codeErrors += 1;
        add(bucket.code, event.ms);
        this.tenantOfRun(event.runId, (t) => (t.codeRuns += 1));
    }
  }

  private runStarted(event: Extract<SessionEvent, { type: "run_start" }>, bucket: TelemetryBucket): void {
    const { runs, bytes } = this.totals;
    runs.total += 1;
    runs.byMode[event.mode] = (runs.byMode[event.mode] ?? 0) + 1;
    if (event.fallbackReason !== undefined) runs.fallbacks += 1;
    const upfront = event.upfront.toolsBytes + event.upfront.instructionsBytes;
    bytes.upfront += upfront;
    bytes.direct += event.upfront.directBytes;
    bucket.runs += 1;
    bucket.upfrontBytes += upfront;
    bucket.directBytes += event.upfront.directBytes;
    const tenant = event.tenant ?? `session:${event.sessionId}`;
    if (!this.open.has(event.runId)) {
      runs.active += 1;
      this.open.set(event.runId, { tenant, started: this.now() });
    }
    const activity = this.tenantActivity(tenant);
    activity.runs += 1;
    activity.activeRuns += 1;
  }

  private runEnded(runId: string): void {
    const run = this.open.peek(runId);
    if (run === undefined) return;
    this.open.delete(runId);
    this.runClosed(run);
  }

  /** A run that ended, or that was pushed out of `open` (it never ended as far as this view knows): it no longer counts as active. */
  private runClosed(run: OpenRun): void {
    this.totals.runs.active -= 1;
    const activity = this.tenants.peek(run.tenant);
    if (activity !== undefined) activity.activeRuns = Math.max(0, activity.activeRuns - 1);
  }

  private called(event: Extract<SessionEvent, { type: "call" }>, bucket: TelemetryBucket): void {
    const { calls } = this.totals;
    count(calls, event.ok, event.code);
    add(calls.latency, event.ms);
    const bySource = (calls.bySource[event.source] ??= { ok: 0, failed: 0 });
    if (event.ok) bySource.ok += 1;
    else bySource.failed += 1;
    bucket.calls += 1;
    if (!event.ok) bucket.callErrors += 1;
    add(bucket.call, event.ms);
    if (event.source === "mcp") this.serverCall(event);
    this.tenantOfRun(event.runId, (t) => (event.ok ? (t.calls.ok += 1) : (t.calls.failed += 1)));
  }

  /** `mcp:<server>:<tool>`: per server, since its name is the config's (a closed set). */
  private serverCall(event: Extract<SessionEvent, { type: "call" }>): void {
    const server = event.id.split(":", 2)[1];
    if (server === undefined) return;
    let calls = this.servers.peek(server);
    if (calls === undefined) {
      calls = { ok: 0, failed: 0, latency: latency() };
      this.servers.set(server, calls);
    }
    if (event.ok) calls.ok += 1;
    else {
      calls.failed += 1;
      calls.lastError = { code: event.code ?? "UNKNOWN", at: this.now() };
    }
    add(calls.latency, event.ms);
  }

  private touch(runId: string): void {
    this.tenantOfRun(runId, () => {});
  }

  private tenantOfRun(runId: string, update: (activity: TenantActivity) => void): void {
    const run = this.open.peek(runId);
    if (run !== undefined) update(this.tenantActivity(run.tenant));
  }

  private tenantActivity(tenant: string): TenantActivity {
    const activity = this.tenants.get(tenant) ?? { tenant, runs: 0, activeRuns: 0, calls: { ok: 0, failed: 0 }, codeRuns: 0, lastSeen: 0 };
    activity.lastSeen = this.now();
    this.tenants.set(tenant, activity);
    return activity;
  }

  /** The bucket of now, started fresh when the ring comes round to it. */
  private bucket(): TelemetryBucket {
    const t = Math.floor(this.now() / this.bucketMs) * this.bucketMs;
    const slot = Math.floor(t / this.bucketMs) % this.size;
    let bucket = this.ring[slot];
    if (bucket === undefined || bucket.t !== t) {
      bucket = emptyBucket(t);
      this.ring[slot] = bucket;
    }
    return bucket;
  }

  snapshot(): TelemetryTotals {
    return structuredClone(this.totals);
  }

  /** The last `count` buckets up to now, oldest first, empty ones included (a chart needs its gaps). */
  series(count = this.size): TelemetryBucket[] {
    const n = Math.max(1, Math.min(this.size, Math.floor(count)));
    const last = Math.floor(this.now() / this.bucketMs) * this.bucketMs;
    const out: TelemetryBucket[] = [];
    for (let i = n - 1; i >= 0; i--) {
      const t = last - i * this.bucketMs;
      const bucket = this.ring[Math.floor(t / this.bucketMs) % this.size];
      out.push(bucket !== undefined && bucket.t === t ? structuredClone(bucket) : emptyBucket(t));
    }
    return out;
  }

  /** Tenants seen, most recently seen first. */
  tenantActivities(): TenantActivity[] {
    return [...this.tenants.values()].reverse().map((a) => structuredClone(a));
  }

  serverCalls(): Map<string, ServerCalls> {
    return new Map([...this.servers.entries()].map(([name, calls]) => [name, structuredClone(calls)]));
  }
}

/** A bucket with nothing counted yet: the ring's fresh one, and a gap in a series. */
function emptyBucket(t: number): TelemetryBucket {
  return {
    t,
    runs: 0,
    searches: 0,
    calls: 0,
    callErrors: 0,
    codeRuns: 0,
    codeErrors: 0,
    upfrontBytes: 0,
    directBytes: 0,
    search: latency(),
    call: latency(),
    code: latency(),
  };
}
