/**
 * What the admin API (`/admin/v1/…`, admin-routes.ts) sends, live telemetry's figures
 * (live-telemetry.ts) included: the one definition that the server's routes are typed by and
 * that the web console (console/, a browser bundle with its own tsconfig) reads. A field
 * renamed here, or in what a route returns, breaks one build or the other.
 *
 * Types only. The engine's types that an answer carries as they are (a hit's ranking steps, a
 * source's status, the sandbox report, learning's counts) are the engine's own, imported
 * type-only: a field renamed in the engine breaks the console's build too. The console's
 * typecheck (`tsc -p console/tsconfig.json`, in `npm run typecheck`) compiles this file and
 * every module it reaches without Node's types, so nothing imported here may reach a module that
 * touches Node (`node:*`, Buffer, NodeJS.*): where an engine type sits beside such code, it lives
 * in a small module of its own that the engine's module re-exports (settings/modes.ts,
 * catalog/source-status.ts, learning/learning-stats.ts, sandbox/pool/pool-schema.ts, ...).
 * A field whose type admits `undefined` is left out of the JSON when it is undefined.
 */
import type { TokenIdentity } from "../auth/token-identity.js";
import type { RebuildError, SourceStatus } from "../catalog/source-status.js";
import type { ToolSource } from "../catalog/types.js";
import type { DetailedHit, ToolListing } from "../dispatch/types.js";
import type { LearnedWord, LearningScopeStats, LearningStats } from "../learning/learning-stats.js";
import type { McpSourceState, McpTransport } from "../mcp/mcp-source-state.js";
import type { PoolLoad, SandboxReport } from "../sandbox/types.js";
import type { ToolSearchMode } from "../settings/modes.js";
import type { RunTelemetry } from "../telemetry/types.js";

export type { RankStep } from "../dispatch/types.js";
export type { FieldName, ScoreDetail } from "../search/types.js";

/** One page of a list (`offset`, `limit` from the query) and how many there are in all. */
export interface Page {
  total: number;
  offset: number;
  limit: number;
}

// ---- GET /admin/v1: the index ----

/** A `gateway.auth.tokens` entry as the index lists it: by its tenant and the identity it carries, never the token. */
export interface TokenSummary extends Omit<TokenIdentity, "owner"> {
  /** The token's tenant: what a search's `identity.token` names to search as that token. */
  label: string;
  owner: boolean;
}

export interface AdminRoute {
  method: "GET" | "POST";
  path: string;
  what: string;
}

export interface AdminIndex {
  face: "serve" | "mcp";
  version: string;
  /** The configured mode (`tools.toolSearch.mode`). */
  mode: ToolSearchMode;
  tokens: TokenSummary[];
  routes: AdminRoute[];
}

// ---- GET /admin/v1/catalog ----

export interface SourceRow extends SourceStatus {
  /** An MCP source's server: its state, transport and whether its tool list was cut. */
  mcp?: { state: McpSourceState; transport: McpTransport; truncated: boolean };
}

export interface CatalogAnswer extends Page {
  size: number;
  mode: ToolSearchMode;
  sources: SourceRow[];
  rebuildError?: RebuildError;
}

// ---- GET /admin/v1/tools ----

/** Who the admin API listed or searched as: the identity asked for, with `token` narrowed by that token's own. */
export interface AdminRunIdentity {
  agentId?: string;
  owner?: boolean;
  channel?: string;
  mode?: ToolSearchMode;
  profile?: string;
  /** The token's tenant it was asked as. */
  token?: string;
}

export interface ToolsAnswer extends Page {
  /** null: no identity asked, every tool listed without policy. */
  identity: AdminRunIdentity | null;
  policyApplied: boolean;
  tools: ToolListing[];
}

// ---- POST /admin/v1/search: hits and why ----

/** A hit as the search route explains it: `detail` (the steps that placed it) unless the request asked `detail: false`. */
export type ExplainedHit = Omit<DetailedHit, "detail"> & Partial<Pick<DetailedHit, "detail">>;

export interface SearchAnswer {
  request: string;
  identity: AdminRunIdentity;
  mode: ToolSearchMode;
  requestedMode: ToolSearchMode;
  fallbackReason?: string;
  catalog: RunTelemetry["catalog"];
  /** What the run's model is shown up front. */
  upfront: RunTelemetry["upfront"];
  hits: ExplainedHit[];
}

// ---- GET /admin/v1/telemetry: live telemetry (live-telemetry.ts) ----

/** A latency: how many, their sum and the largest, in ms. */
export interface Latency {
  count: number;
  sumMs: number;
  maxMs: number;
}

export interface OutcomeCounts {
  ok: number;
  failed: number;
  /** Failures by error code (a closed set: the taxonomy's codes). */
  byCode: Record<string, number>;
}

export interface TelemetryTotals {
  /** When this process started counting (ISO time). */
  since: string;
  runs: { total: number; active: number; byMode: Partial<Record<ToolSearchMode, number>>; fallbacks: number };
  searches: { total: number; latency: Latency };
  describes: OutcomeCounts;
  calls: OutcomeCounts & { bySource: Partial<Record<ToolSource | "unknown", { ok: number; failed: number }>>; latency: Latency };
  codeRuns: OutcomeCounts & { latency: Latency };
  /** Bytes the runs showed the model up front, and what direct mode would have shown for the same catalogs. */
  bytes: { upfront: number; direct: number };
}

/** One bucket of the series (`bucketMs` wide, starting at `t`, epoch ms). */
export interface TelemetryBucket {
  t: number;
  runs: number;
  searches: number;
  calls: number;
  callErrors: number;
  codeRuns: number;
  codeErrors: number;
  upfrontBytes: number;
  directBytes: number;
  search: Latency;
  call: Latency;
  code: Latency;
}

export interface TelemetryAnswer {
  bucketMs: number;
  totals: TelemetryTotals;
  /** Oldest first, empty buckets included. */
  series: TelemetryBucket[];
}

// ---- GET /admin/v1/tenants ----

export interface TenantRow {
  tenant: string;
  runs: number;
  activeRuns: number;
  calls: { ok: number; failed: number };
  codeRuns: number;
  /** ISO time of its last event. */
  lastSeen?: string;
  sessions: number;
  inFlight: number;
  codeBodies: { running: number; queued: number };
}

export interface TenantsAnswer extends Page {
  tenants: TenantRow[];
  shares: {
    /** null: the code pool has not started. */
    pool: Omit<PoolLoad, "tenants"> | null;
    /** `mcp --http` only. */
    sessions?: { open: number; max: number; perTenant: number };
  };
}

// ---- GET /admin/v1/sandbox ----

/** `started: false`: no run has needed code mode yet, so nothing was probed. */
export type SandboxAnswer = { started: false } | { report: SandboxReport; load?: PoolLoad };

// ---- GET /admin/v1/mcp-servers ----

export interface ServerRow {
  name: string;
  transport: McpTransport;
  state: McpSourceState;
  up: boolean;
  tools: number;
  truncated: boolean;
  pid?: number;
  lastError?: string;
  lastListError?: string;
  stderr?: string;
  /** Its calls as runs saw them; `lastError.at` is an ISO time. */
  calls: { ok: number; failed: number; meanMs: number; maxMs: number; lastError?: { code: string; at: string } };
}

export interface ServersAnswer extends Page {
  servers: ServerRow[];
}

// ---- GET /admin/v1/learning and /learning/words (learning/learner.ts) ----

export interface LearningAnswer extends Page {
  enabled: boolean;
  /** Absent when learning is off. */
  stats?: LearningStats;
  scopes: LearningScopeStats[];
  wordsKept: boolean;
}

/** The words learned for one tool (learned-words.ts), where the operator keeps them readable. */
export interface LearnedWords {
  /** Whether this process keeps learned words readable; false: `words` is empty and `why` says so. */
  kept: boolean;
  why?: string;
  words: LearnedWord[];
}

export interface WordsAnswer extends LearnedWords {
  scope: string;
  tool: string;
}
