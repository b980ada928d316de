/**
 * The `tools.toolSearch` value: `true` (code mode), `false` (direct), or an object. Validated
 * with ajv once, at the edge, and defaulted here and nowhere else.
 */
import { ConfigInvalidError } from "../errors.js";
import { compileOptions, int } from "../validation/ajv.js";
import {
  LIBRARY_LEARNING_DEFAULT,
  learningSchema,
  resolveLearning,
  SERVER_LEARNING_DEFAULT,
  type LearningConfig,
  type ResolvedLearningOptions,
} from "../learning/options.js";
import { MIN_SNAPSHOT_KEY_LENGTH } from "../search/storage/snapshot-store.js";

/** The modes, listed here and nowhere else (schemas, the run context, the gateway take them from here). */
export const TOOL_SEARCH_MODES = ["direct", "code", "tools", "directory"] as const;
export type ToolSearchMode = (typeof TOOL_SEARCH_MODES)[number];

export interface DirectorySettings {
  maxChars: number;
  descriptionChars: number;
  likelySchemas: number;
  maxLikelySchemas: number;
}

/**
 * The `toolSearch` value resolved: every default applied (resolveToolSearchConfig). What the engine and the surfaces read (`engine.settings`); not what
 * users write, which is ToolSearchConfig.
 */
export interface ToolSearchSettings {
  mode: ToolSearchMode;
  codeTimeoutMs: number;
  searchDefaultLimit: number;
  maxSearchLimit: number;
  directory: DirectorySettings;
  /** A tool result's text past this many UTF-8 bytes is cut, with a marker, before the model sees it (not code mode). */
  maxResultBytes: number;
  /** Index snapshots by catalog fingerprint in this folder (shared by workers and replicas); none when unset. */
  indexCacheDir?: string;
  /** HMAC key of the snapshots in indexCacheDir: only snapshots written with it are used. */
  indexCacheKey?: string;
  /** The environment variable that holds indexCacheKey (read by resolveIndexCacheKey). */
  indexCacheKeyEnv?: string;
  /** Learning from use (learning/options.ts): off in the library unless set, on in `serve` and `mcp`. */
  learning: ResolvedLearningOptions;
}

/** 1 MiB: what a tool result may put in front of the model outside code mode. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

/** The object form of ToolSearchConfig, every key optional. */
export interface ToolSearchObject {
  mode?: ToolSearchMode;
  codeTimeoutMs?: number;
  searchDefaultLimit?: number;
  maxSearchLimit?: number;
  directory?: Partial<DirectorySettings>;
  maxResultBytes?: number;
  indexCacheDir?: string;
  indexCacheKey?: string;
  indexCacheKeyEnv?: string;
  learning?: LearningConfig;
}

/**
 * The `toolSearch` value as users write it, in createToolSearch's options or the config file's
 * `tools.toolSearch`: `true` (code mode), `false` (direct) or a ToolSearchObject. Resolved into
 * ToolSearchSettings. Not the options of createToolSearch as a whole (CreateToolSearchOptions).
 */
export type ToolSearchConfig = boolean | ToolSearchObject;

export const DEFAULT_SETTINGS: ToolSearchSettings = {
  mode: "code",
  codeTimeoutMs: 10_000,
  searchDefaultLimit: 8,
  maxSearchLimit: 20,
  directory: { maxChars: 18_000, descriptionChars: 180, likelySchemas: 4, maxLikelySchemas: 12 },
  maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
  learning: resolveLearning(undefined, LIBRARY_LEARNING_DEFAULT),
};

/** The ranges of the numbers; a value outside its range is CONFIG_INVALID naming the key, the range and the value. */
const RANGES = {
  codeTimeoutMs: int(1_000, 60_000),
  searchLimit: int(1, 50),
  maxChars: int(500, 200_000),
  descriptionChars: int(20, 1_000),
  likelySchemas: int(0, 12),
  maxResultBytes: int(1_024, 64 * 1024 * 1024),
};

const objectSchema = {
  type: "object",
  description:
    "true, false or an object { mode, codeTimeoutMs, searchDefaultLimit, maxSearchLimit, maxResultBytes, directory, indexCacheDir, indexCacheKey, indexCacheKeyEnv, learning }",
  additionalProperties: false,
  properties: {
    mode: { enum: TOOL_SEARCH_MODES },
    codeTimeoutMs: RANGES.codeTimeoutMs,
    searchDefaultLimit: RANGES.searchLimit,
    maxSearchLimit: RANGES.searchLimit,
    maxResultBytes: RANGES.maxResultBytes,
    indexCacheDir: { type: "string", minLength: 1 },
    indexCacheKey: { type: "string", minLength: MIN_SNAPSHOT_KEY_LENGTH },
    indexCacheKeyEnv: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
    learning: learningSchema,
    directory: {
      type: "object",
      additionalProperties: false,
      properties: {
        maxChars: RANGES.maxChars,
        descriptionChars: RANGES.descriptionChars,
        likelySchemas: RANGES.likelySchemas,
        maxLikelySchemas: RANGES.likelySchemas,
      },
    },
  },
};

const check = compileOptions<ToolSearchObject>("toolSearch", objectSchema);

export function resolveToolSearchConfig(value: unknown, path = "tools.toolSearch"): ToolSearchSettings {
  if (value === undefined || value === true) return structuredClone(DEFAULT_SETTINGS);
  if (value === false) return { ...structuredClone(DEFAULT_SETTINGS), mode: "direct" };
  const checked = check(value, path, redactKey(value));
  if (checked.indexCacheKey !== undefined && checked.indexCacheKeyEnv !== undefined) {
    throw new ConfigInvalidError(`${path}: give at most one of "indexCacheKey" or "indexCacheKeyEnv"`);
  }
  return withDefaults(checked, path);
}

/** A copy for error messages: the key is a secret. */
function redactKey(value: unknown): unknown {
  return typeof value === "object" && value !== null && "indexCacheKey" in value ? { ...value, indexCacheKey: "<redacted>" } : value;
}

/**
 * The snapshot key: indexCacheKey, or the variable indexCacheKeyEnv names (read here, when the
 * engine or gateway starts, not when a config file is checked). A variable that is missing,
 * empty or too short is CONFIG_INVALID naming it.
 */
export function resolveIndexCacheKey(
  settings: Pick<ToolSearchObject, "indexCacheKey" | "indexCacheKeyEnv">,
  env: NodeJS.ProcessEnv = process.env,
  path = "tools.toolSearch",
): string | undefined {
  if (settings.indexCacheKeyEnv === undefined) return settings.indexCacheKey;
  const name = settings.indexCacheKeyEnv;
  const value = env[name];
  if (!value) throw new ConfigInvalidError(`${path}.indexCacheKeyEnv: the environment variable ${name} is ${value === undefined ? "not set" : "empty"}`);
  if (value.length < MIN_SNAPSHOT_KEY_LENGTH)
    throw new ConfigInvalidError(`${path}.indexCacheKeyEnv: ${name} holds ${value.length} characters; a key needs at least ${MIN_SNAPSHOT_KEY_LENGTH}`);
  return value;
}

/**
 * The `tools.toolSearch` value a server (`serve`, `mcp`) runs with: learning on unless the
 * config says otherwise (`learning: false` or `learning: { enabled: false }`). `false` (direct
 * mode: no searches to learn from) is left as it is.
 */
export function withServerLearning(toolSearch: ToolSearchConfig | undefined): ToolSearchConfig {
  if (toolSearch === false) return toolSearch;
  if (toolSearch === undefined || toolSearch === true) return { learning: SERVER_LEARNING_DEFAULT };
  const learning = toolSearch.learning;
  if (typeof learning === "boolean") return toolSearch;
  return { ...toolSearch, learning: { enabled: SERVER_LEARNING_DEFAULT, ...(learning ?? {}) } };
}

/**
 * The defaults of DEFAULT_SETTINGS under what `value` sets. A default limit not set follows a
 * smaller cap; one set above its cap is refused (refuseAboveCap), never cut.
 */
function withDefaults(value: ToolSearchObject, path: string): ToolSearchSettings {
  const d = DEFAULT_SETTINGS;
  const maxSearchLimit = value.maxSearchLimit ?? d.maxSearchLimit;
  const maxLikelySchemas = value.directory?.maxLikelySchemas ?? d.directory.maxLikelySchemas;
  refuseAboveCap(`${path}.searchDefaultLimit`, value.searchDefaultLimit, `${path}.maxSearchLimit`, maxSearchLimit);
  refuseAboveCap(`${path}.directory.likelySchemas`, value.directory?.likelySchemas, `${path}.directory.maxLikelySchemas`, maxLikelySchemas);
  return {
    mode: value.mode ?? d.mode,
    codeTimeoutMs: value.codeTimeoutMs ?? d.codeTimeoutMs,
    maxSearchLimit,
    searchDefaultLimit: value.searchDefaultLimit ?? Math.min(d.searchDefaultLimit, maxSearchLimit),
    directory: {
      maxChars: value.directory?.maxChars ?? d.directory.maxChars,
      descriptionChars: value.directory?.descriptionChars ?? d.directory.descriptionChars,
      maxLikelySchemas,
      likelySchemas: value.directory?.likelySchemas ?? Math.min(d.directory.likelySchemas, maxLikelySchemas),
    },
    maxResultBytes: value.maxResultBytes ?? d.maxResultBytes,
    learning: resolveLearning(value.learning, LIBRARY_LEARNING_DEFAULT),
    ...(value.indexCacheDir !== undefined ? { indexCacheDir: value.indexCacheDir } : {}),
    ...(value.indexCacheKey !== undefined ? { indexCacheKey: value.indexCacheKey } : {}),
    ...(value.indexCacheKeyEnv !== undefined ? { indexCacheKeyEnv: value.indexCacheKeyEnv } : {}),
  };
}

/** A default (`searchDefaultLimit`, `likelySchemas`) set above its cap is CONFIG_INVALID naming both. */
function refuseAboveCap(key: string, value: number | undefined, capKey: string, cap: number): void {
  if (value !== undefined && value > cap) {
    throw new ConfigInvalidError(`${key}: must be at most ${capKey} (${cap}); got ${value} (number)`);
  }
}
