/**
 * The `tools.toolSearch.learning` value (and createToolSearch's): `true`, `false`, or an object.
 * Checked by the `tools.toolSearch` schema (tool-search-config.ts includes `learningSchema`),
 * defaulted here and nowhere else. The one switch is `enabled`: off in the library, on in
 * `serve` and `mcp` (SERVER_LEARNING_DEFAULT).
 */
import { compileOptions } from "../validation/ajv.js";
import { boolean, defaultsOf, int, object, oneOf, withDefault, withoutDefaults, type Filled, type TypeOf } from "../validation/typed-schema.js";

/** Whose requests teach whose rankings: one agent's sessions (default), one token's, or everyone's. */
export const LEARNING_SCOPES = ["agent", "token", "shared"] as const;
export type LearningScope = (typeof LEARNING_SCOPES)[number];

/** The object form of the value: every option optional, each with its range and default. */
const learningObjectSchema = object(
  {
    /** The switch (default: off in the library, on in `serve` and `mcp`: resolveLearning defaults it, as where the engine runs decides). */
    enabled: boolean(),
    /** A (term, tool) pair counts only after this many distinct sessions gave it (default 3). */
    minSessions: withDefault(int(1, 100), 3),
    /** Who shares what was learned (default "agent"). */
    scope: withDefault(oneOf(LEARNING_SCOPES), "agent"),
    /** Learned terms kept per tool and scope, weakest dropped first (default 256). */
    maxTermsPerTool: withDefault(int(1, 1_024), 256),
    /** Tools one session may teach (default 8): a session past it teaches nothing more. */
    maxToolsPerSession: withDefault(int(1, 256), 8),
    /** Terms taken from one request (default 16). */
    maxTermsPerRequest: withDefault(int(1, 64), 16),
    /** Half-life of a learned count, days (default 30). */
    halfLifeDays: withDefault({ type: "number", exclusiveMinimum: 0, maximum: 36_500 }, 30),
    /**
     * Weight of the learned score against the catalog's own relative score (default 20: a request
     * mostly made of words taught for one tool follows them; 0 learns without using it).
     */
    weight: withDefault({ type: "number", minimum: 0, maximum: 100 }, 20),
    /** How often what was learned is written to the store, ms (default 5000). */
    flushMs: withDefault(int(100, 3_600_000), 5_000),
    /** Scopes one tenant (a token's label; no tenant counts as one) may hold (default 64): past it, its own least recently taught scope goes. */
    maxScopesPerTenant: withDefault(int(1, 100_000), 64),
    /** Learned records one tenant's scopes may hold (default 100,000): past it, its own least recently taught tools' records go. */
    maxRecordsPerTenant: withDefault(int(1_000, 100_000_000), 100_000),
    /** Learned records held in all (default 400,000): past it, those of the tenant holding the most go first. */
    maxRecords: withDefault(int(1_000, 100_000_000), 400_000),
    /**
     * Keep request words in clear in the model, its store and exports (default false: each word is
     * kept as a keyed hash, term-keys.ts), for operators who want to read what was learned.
     */
    recordTerms: withDefault(boolean(), false),
  },
  {
    description:
      "true, false or an object { enabled, minSessions, scope, maxTermsPerTool, maxToolsPerSession, maxTermsPerRequest, halfLifeDays, weight, flushMs, maxScopesPerTenant, maxRecordsPerTenant, maxRecords, recordTerms }",
  },
);

/** The object form of the `learning` value, each option optional: learningObjectSchema documents each one, its range and default. */
export type LearningObject = TypeOf<typeof learningObjectSchema>;

/**
 * The JSON Schema of the value, included in `tools.toolSearch`'s. Without the object's defaults:
 * ajv's strict mode refuses them under anyOf (where it would not fill them in); resolveLearning
 * checks the object again, with its own schema, and fills them in.
 */
export const learningSchema = { anyOf: [boolean(), withoutDefaults(learningObjectSchema)] };

/** The `learning` value: `true`, `false` or a LearningObject. */
export type LearningConfig = TypeOf<typeof learningSchema>;

/** The learning options resolved: every option present, with the tunables users do not set. */
export type ResolvedLearningOptions = Required<Filled<typeof learningObjectSchema>> & {
  /** Scopes held in memory; past it, the least recently taught scope of the tenant holding the most goes. */
  maxScopes: number;
  /** Recent contributors remembered per pair (dedupe); at least minSessions. */
  seenPerPair: number;
  /** Sessions whose contributions are remembered (the per-session cap). */
  maxTrackedSessions: number;
};

/**
 * Learning is on by default where the engine is a server (`serve`, `mcp`): they see the traffic
 * it learns from. (It was off for a while: a word the catalog's text shares widely, taught to one
 * tool first, outweighed the catalog's clear first hit in the gateway bench; request words are now
 * weighed by the catalog's IDF too, learner.ts catalogTermWeight.)
 */
export const SERVER_LEARNING_DEFAULT = true;
/** ...and off in the library, where the caller decides. */
export const LIBRARY_LEARNING_DEFAULT = false;

/** Every option but the switch, as learningObjectSchema defaults it, and the tunables users do not set. */
export const DEFAULT_LEARNING: Omit<ResolvedLearningOptions, "enabled"> = {
  ...defaultsOf(learningObjectSchema),
  maxScopes: 1_024,
  seenPerPair: 8,
  maxTrackedSessions: 10_000,
};

const check = compileOptions("learning", learningObjectSchema);

/** The value with every default filled in; `enabledByDefault` is the switch's default where the engine runs. */
export function resolveLearning(value: unknown, enabledByDefault: boolean, path = "tools.toolSearch.learning"): ResolvedLearningOptions {
  if (value === undefined || typeof value === "boolean") return { ...DEFAULT_LEARNING, enabled: value ?? enabledByDefault };
  // Checked against the schema (additionalProperties: false), so every key present is a valid option, and defaulted.
  const v = check(value, path);
  return { ...DEFAULT_LEARNING, ...v, enabled: v.enabled ?? enabledByDefault, seenPerPair: Math.max(DEFAULT_LEARNING.seenPerPair, v.minSessions) };
}
