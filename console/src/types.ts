/** The admin API's answers as the console reads them (/admin/v1, src/admin/admin-routes.ts): only the fields it shows. */

export interface Page {
  total: number;
  offset: number;
  limit: number;
}

export interface TokenSummary {
  label: string;
  agentId?: string;
  owner: boolean;
  channels?: string[];
  modes?: string[];
}

export interface AdminIndex {
  face: "serve" | "mcp";
  version: string;
  mode: string;
  tokens: TokenSummary[];
}

export interface SourceRow {
  source: string;
  toolset: string;
  ok: boolean;
  tools: number;
  error?: string;
  mcp?: { state: string; transport: string; truncated: boolean };
}

export interface CatalogAnswer extends Page {
  size: number;
  mode: string;
  sources: SourceRow[];
  rebuildError?: { code: string; message: string; time: string };
}

export interface ToolListing {
  id: string;
  name: string;
  source: string;
  toolset: string;
  summary: string;
  signature?: string;
  ownerOnly: boolean;
}

export interface ToolsAnswer extends Page {
  tools: ToolListing[];
}

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

export type RankStep =
  | { step: "whole" | "clause"; label: string; clause?: number; text: string; rank: number; score: number; index: "catalog" | "client"; bm25f?: ScoreDetail }
  | { step: "select" | "exact" | "client" | "weak"; label: string }
  | { step: "fusion"; label: string; rank: number; score: number }
  | { step: "sibling"; label: string; of: string }
  | { step: "expansion"; label: string; word: string; term: string; via: string }
  | { step: "learned"; label: string; rank: number; textRank?: number };

export interface Hit {
  id: string;
  name: string;
  source: string;
  toolset: string;
  summary: string;
  score: number;
  signature?: string;
  weak?: true;
  learned: boolean;
  detail?: { steps: RankStep[] };
}

export interface Upfront {
  schemas: number;
  declaredTools: number;
  toolsBytes: number;
  instructionsBytes: number;
  directBytes: number;
}

export interface SearchAnswer {
  request: string;
  identity: Record<string, unknown>;
  mode: string;
  requestedMode: string;
  fallbackReason?: string;
  catalog: { size: number; bySource: Record<string, number> };
  upfront: Upfront;
  hits: Hit[];
}

export interface Latency {
  count: number;
  sumMs: number;
  maxMs: number;
}

export interface Outcomes {
  ok: number;
  failed: number;
  byCode: Record<string, number>;
}

export interface Totals {
  since: string;
  runs: { total: number; active: number; byMode: Record<string, number>; fallbacks: number };
  searches: { total: number; latency: Latency };
  describes: Outcomes;
  calls: Outcomes & { latency: Latency };
  codeRuns: Outcomes & { latency: Latency };
  bytes: { upfront: number; direct: number };
}

export interface Bucket {
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
  totals: Totals;
  series: Bucket[];
}

export interface TenantRow {
  tenant: string;
  runs: number;
  activeRuns: number;
  calls: { ok: number; failed: number };
  codeRuns: number;
  lastSeen?: string;
  sessions: number;
  inFlight: number;
  codeBodies: { running: number; queued: number };
}

export interface TenantsAnswer extends Page {
  tenants: TenantRow[];
  shares: {
    pool: { running: number; queued: number; ready: number; maxConcurrent: number; maxQueue: number } | null;
    sessions?: { open: number; max: number; perTenant: number };
  };
}

export interface SandboxAnswer {
  started?: false;
  report?: { available: boolean; reason?: string; nodeVersion: string; layers: Record<string, boolean>; notes?: string[] };
  load?: { ready: number; running: number; queued: number; maxConcurrent: number; maxQueue: number };
}

export interface ServerRow {
  name: string;
  transport: string;
  state: string;
  up: boolean;
  tools: number;
  truncated: boolean;
  pid?: number;
  lastError?: string;
  lastListError?: string;
  stderr?: string;
  calls: { ok: number; failed: number; meanMs: number; maxMs: number; lastError?: { code: string; at: string } };
}

export interface ServersAnswer extends Page {
  servers: ServerRow[];
}

export interface ScopeRow {
  scope: string;
  tenant: string;
  records: number;
  active: number;
  tools: number;
}

export interface LearningAnswer extends Page {
  enabled: boolean;
  stats?: { records: number; active: number; tools: number; scopes: number; pending: number; store: string };
  scopes: ScopeRow[];
  wordsKept: boolean;
}

export interface WordsAnswer {
  kept: boolean;
  why?: string;
  words: Array<{ term: string; count: number; sessions: number }>;
}
