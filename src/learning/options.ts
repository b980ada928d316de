/**
 * The `tools.toolSearch.learning` value (and createToolSearch's): `true`, `false`, or an object.
 * Checked by the `tools.toolSearch` schema (tool-search-config.ts includes `learningSchema`),
 * defaulted here and nowhere else. The one switch is `enabled`: off in the library, on in
 * `serve` and `mcp` (SERVER_LEARNING_DEFAULT).
 */
import { compileOptions } from "../validation/ajv.js";

/** Whose requests teach whose rankings: one agent's sessions (default), one token's, or everyone's. */
export const LEARNING_SCOPES = ["agent", "token", "shared"] as const;
export type LearningScope = (typeof LEARNING_SCOPES)[number];

export interface LearningObject {
  /** The switch (default: off in the library, on in `serve` and `mcp`). */
  enabled?: boolean;
  /** A (term, tool) pair counts only after this many distinct sessions gave it (default 3). */
  minSessions?: number;
  /** Who shares what was learned (default "agent"). */
  scope?: LearningScope;
  /** Learned terms kept per tool and scope, weakest dropped first (default 256). */
  maxTermsPerTool?: number;
  /** Tools one session may teach (default 8): a session past it teaches nothing more. */
  maxToolsPerSession?: number;
  /** Terms taken from one request (default 16). */
  maxTermsPerRequest?: number;
  /** Half-life of a learned count, days (default 30). */
  halfLifeDays?: number;
  /**
   * Weight of the learned score against the catalog's own relative score (default 20: a request
   * mostly made of words taught for one tool follows them; 0 learns without using it).
   */
  weight?: number;
  /** How often what was learned is written to the store, ms (default 5000). */
  flushMs?: number;
  /** Scopes one tenant (a token's label; no tenant counts as one) may hold (default 64): past it, its own least recently taught scope goes. */
  maxScopesPerTenant?: number;
  /** Learned records one tenant's scopes may hold (default 100,000): past it, its own least recently taught tools' records go. */
  maxRecordsPerTenant?: number;
  /** Learned records held in all (default 400,000): past it, those of the tenant holding the most go first. */
  maxRecords?: number;
  /**
   * Keep request words in clear in the model, its store and exports (default false: each word is
   * kept as a keyed hash, term-keys.ts), for operators who want to read what was learned.
   */
  recordTerms?: boolean;
}

export type LearningConfig = boolean | LearningObject;

export interface ResolvedLearningOptions {
  enabled: boolean;
  minSessions: number;
  scope: LearningScope;
  maxTermsPerTool: number;
  maxToolsPerSession: number;
  maxTermsPerRequest: number;
  halfLifeDays: number;
  weight: number;
  flushMs: number;
  /** Scopes held in memory; past it, the least recently taught scope of the tenant holding the most goes. */
  maxScopes: number;
  maxScopesPerTenant: number;
  maxRecordsPerTenant: number;
  maxRecords: number;
  recordTerms: boolean;
  /** Recent contributors remembered per pair (dedupe); at least minSessions. */
  seenPerPair: number;
  /** Sessions whose contributions are remembered (the per-session cap). */
  maxTrackedSessions: number;
}

/**
 * Learning is on by default where the engine is a server (`serve`, `mcp`): they see the traffic
 * it learns from. (It was off for a while: a word the catalog's text shares widely, taught to one
 * tool first, outweighed the catalog's clear first hit in the gateway bench; request words are now
 * weighed by the catalog's IDF too, learner.ts catalogTermWeight.)
 */
export const SERVER_LEARNING_DEFAULT = true;
/** ...and off in the library, where the caller decides. */
export const LIBRARY_LEARNING_DEFAULT = false;

export const DEFAULT_LEARNING: Omit<ResolvedLearningOptions, "enabled"> = {
  minSessions: 3,
  scope: "agent",
  maxTermsPerTool: 256,
  maxToolsPerSession: 8,
  maxTermsPerRequest: 16,
  halfLifeDays: 30,
  weight: 20,
  flushMs: 5_000,
  maxScopes: 1_024,
  maxScopesPerTenant: 64,
  maxRecordsPerTenant: 100_000,
  maxRecords: 400_000,
  recordTerms: false,
  seenPerPair: 8,
  maxTrackedSessions: 10_000,
};

const int = (minimum: number, maximum: number) => ({ type: "integer", minimum, maximum });
const learningObjectSchema = {
  type: "object",
  additionalProperties: false,
  description:
    "true, false or an object { enabled, minSessions, scope, maxTermsPerTool, maxToolsPerSession, maxTermsPerRequest, halfLifeDays, weight, flushMs, maxScopesPerTenant, maxRecordsPerTenant, maxRecords, recordTerms }",
  properties: {
    enabled: { type: "boolean" },
    minSessions: int(1, 100),
    scope: { enum: LEARNING_SCOPES },
    maxTermsPerTool: int(1, 1_024),
    maxToolsPerSession: int(1, 256),
    maxTermsPerRequest: int(1, 64),
    halfLifeDays: { type: "number", exclusiveMinimum: 0, maximum: 36_500 },
    weight: { type: "number", minimum: 0, maximum: 100 },
    flushMs: int(100, 3_600_000),
    maxScopesPerTenant: int(1, 100_000),
    maxRecordsPerTenant: int(1_000, 100_000_000),
    maxRecords: int(1_000, 100_000_000),
    recordTerms: { type: "boolean" },
  },
};

/** The JSON Schema of the value, included in `tools.toolSearch`'s. */
export const learningSchema: Record<string, unknown> = { anyOf: [{ type: "boolean" }, learningObjectSchema] };
const check = compileOptions<LearningObject>("learning", learningObjectSchema);

/** The value with every default filled in; `enabledByDefault` is the switch's default where the engine runs. */
export function resolveLearning(value: unknown, enabledByDefault: boolean, path = "tools.toolSearch.learning"): ResolvedLearningOptions {
  if (value === undefined || typeof value === "boolean") return { ...DEFAULT_LEARNING, enabled: value ?? enabledByDefault };
  // Checked against the schema (additionalProperties: false), so every key present is a valid option.
  const v = check(value, path);
  const minSessions = v.minSessions ?? DEFAULT_LEARNING.minSessions;
  return { ...DEFAULT_LEARNING, ...v, enabled: v.enabled ?? enabledByDefault, seenPerPair: Math.max(DEFAULT_LEARNING.seenPerPair, minSessions) };
}
