/**
 * What the admin API (`/admin/v1/…`, admin-routes.ts) sends, live telemetry's figures
 * (live-telemetry.ts) included: the one definition that the server's routes are typed by and
 * that the web console (console/, a browser bundle with its own tsconfig) reads. A field
 * renamed here, or in what a route returns, breaks one build or the other.
 *
 * Types only, importing nothing: the console's build compiles this file alone, without Node's
 * types or the engine's modules. The engine's own types that an answer carries as they are (a
 * hit's ranking steps, a source's status, the sandbox report, learning's counts) are therefore
 * spelled out here, and test/admin/admin-wire-types.test.ts holds each equal to the engine's.
 * A field whose type admits `undefined` is left out of the JSON when it is undefined.
 */

/** Where a tool comes from (catalog/types.ts ToolSource). */
export type ToolSource = "core" | "plugin" | "mcp" | "client";

/** How a run shows the catalog to its model (settings/tool-search-config.ts TOOL_SEARCH_MODES). */
export type ToolSearchMode = "direct" | "code" | "tools" | "directory";

/** One page of a list (`offset`, `limit` from the query) and how many there are in all. */
export interface Page {
  total: number;
  offset: number;
  limit: number;
}

// ---- GET /admin/v1: the index ----

/** A `gateway.auth.tokens` entry as the index lists it: by its tenant and the identity it carries, never the token. */
export interface TokenSummary {
  /** The token's tenant: what a search's `identity.token` names to search as that token. */
  label: string;
  agentId?: string;
  owner: boolean;
  channels?: readonly string[];
  modes?: readonly ToolSearchMode[];
  tenant?: string;
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

/** A catalog source's state (catalog/catalog.ts SourceStatus). */
export interface SourceStatus {
  source: Exclude<ToolSource, "client">;
  toolset: string;
  ok: boolean;
  tools: number;
  error?: string;
}

/** An MCP server's connection state (mcp/mcp-server-source.ts McpSourceState). */
export type McpServerState = "idle" | "connecting" | "ready" | "failed" | "gone" | "closed";

export type McpTransport = "stdio" | "http";

export interface SourceRow extends SourceStatus {
  /** An MCP source's server: its state, transport and whether its tool list was cut. */
  mcp?: { state: McpServerState; transport: McpTransport; truncated: boolean };
}

/** Why the last catalog rebuild was refused (the catalog before it is still served). */
export interface RebuildError {
  /** An error code of the taxonomy (errors.ts). */
  code: string;
  message: string;
  /** ISO time. */
  time: string;
}

export interface CatalogAnswer extends Page {
  size: number;
  mode: ToolSearchMode;
  sources: SourceRow[];
  rebuildError?: RebuildError;
}

// ---- GET /admin/v1/tools ----

/** Which tool (catalog/types.ts ToolIdentity). */
export interface ToolIdentity {
  id: string;
  name: string;
  source: ToolSource;
  toolset: string;
}

/** A search hit (dispatch/types.ts SearchHit). */
export interface SearchHit extends ToolIdentity {
  summary: string;
  score: number;
  signature?: string;
  weak?: true;
}

/** A tool as `engine.listTools` lists it (dispatch/types.ts ToolListing). */
export interface ToolListing extends Omit<SearchHit, "score" | "weak"> {
  ownerOnly: boolean;
}

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

// ---- POST /admin/v1/search: hits and why (search/types.ts, dispatch/types.ts) ----

export type FieldName = "name" | "toolset" | "description" | "params";

export interface WordScore {
  word: string;
  term: string;
  via: "word" | "typo" | "thesaurus" | "expansion";
  score: number;
  fields: Record<FieldName, number>;
}

export interface ScoreDetail {
  words: WordScore[];
  sum: number;
  coordination: number;
  namePrecision: number;
  score: number;
}

export interface ListStep {
  step: "whole" | "clause";
  label: string;
  clause?: number;
  text: string;
  rank: number;
  score: number;
  index: "catalog" | "client";
  bm25f?: ScoreDetail;
}

export interface GuardStep {
  step: "guard";
  label: string;
  from: number | undefined;
  to: number;
}

export interface SafetyStep {
  step: "safety";
  label: string;
  from: number;
  to: number;
}

/** One ranking step that placed a hit; `label` says it in words. */
export type RankStep =
  | { step: "select"; label: string }
  | { step: "exact"; label: string }
  | ListStep
  | { step: "fusion"; label: string; rank: number; score: number }
  | { step: "sibling"; label: string; of: string }
  | { step: "expansion"; label: string; word: string; term: string; via: "typo" | "thesaurus" | "expansion" }
  | { step: "client"; label: string }
  | { step: "learned"; label: string; rank: number; textRank: number | undefined; sessions: number; words?: string[] }
  | GuardStep
  | SafetyStep
  | { step: "weak"; label: string };

export interface ExplainDetail {
  steps: RankStep[];
}

/** A hit as the search route explains it: `detail` unless the request asked `detail: false`. */
export interface ExplainedHit extends SearchHit {
  learned: boolean;
  detail?: ExplainDetail;
}

/** What the run's model is shown up front (telemetry/types.ts RunTelemetry["upfront"]). */
export interface Upfront {
  schemas: number;
  declaredTools: number;
  toolsBytes: number;
  instructionsBytes: number;
  directBytes: number;
}

export interface SearchAnswer {
  request: string;
  identity: AdminRunIdentity;
  mode: ToolSearchMode;
  requestedMode: ToolSearchMode;
  fallbackReason?: string;
  catalog: { size: number; bySource: Record<ToolSource, number> };
  upfront: Upfront;
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

/** The code pool's occupancy (sandbox/types.ts PoolLoad). */
export interface PoolLoad {
  ready: number;
  running: number;
  queued: number;
  maxConcurrent: number;
  maxQueue: number;
  /** `tenant` undefined: runs that named none. */
  tenants: Array<{ tenant: string | undefined; running: number; queued: number }>;
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

/** Which isolation layers are in force (sandbox/types.ts SandboxReport). */
export interface SandboxReport {
  available: boolean;
  reason?: string;
  nodeVersion: string;
  permissionFlag?: string;
  notes?: string[];
  layers: {
    permissionModel: boolean;
    networkNamespace: boolean;
    pidNamespace: boolean;
    permissionNet: boolean;
    noCodeGenFromStrings: boolean;
    vmContext: boolean;
    parentInspectorGuard: boolean;
    memoryLimit: boolean;
    orphanKill: boolean;
  };
}

/** `started: false`: no run has needed code mode yet, so nothing was probed. */
export type SandboxAnswer = { started: false } | { report: SandboxReport; load?: PoolLoad };

// ---- GET /admin/v1/mcp-servers ----

export interface ServerRow {
  name: string;
  transport: McpTransport;
  state: McpServerState;
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

export interface LearningStats {
  records: number;
  active: number;
  tools: number;
  scopes: number;
  pending: number;
  store: string;
  loaded: boolean;
  recordTerms: boolean;
}

export interface LearningScopeStats {
  scope: string;
  tenant: string;
  records: number;
  active: number;
  tools: number;
}

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
  words: Array<{ term: string; count: number; sessions: number }>;
}

export interface WordsAnswer extends LearnedWords {
  scope: string;
  tool: string;
}
