/**
 * The `tools.toolSearch` value: `true` (code mode), `false` (direct), or an object. Validated
 * with ajv once, at the edge, and defaulted here and nowhere else.
 */
import { ConfigInvalidError } from "../errors.js";
import { compileOptions } from "../validation/ajv.js";
import { defaultsOf, int, object, oneOf, string, withDefault, type Filled, type Named, type TypeOf } from "../validation/typed-schema.js";
import {
  LIBRARY_LEARNING_DEFAULT,
  learningSchema,
  resolveLearning,
  SERVER_LEARNING_DEFAULT,
  type LearningConfig,
  type ResolvedLearningOptions,
} from "../learning/options.js";
import { MIN_SNAPSHOT_KEY_LENGTH } from "../search/storage/snapshot-store.js";
import { definedProps } from "../defined.js";
import { TOOL_SEARCH_MODES } from "./modes.js";

export { TOOL_SEARCH_MODES, type ToolSearchMode } from "./modes.js";

/** 1 MiB: what a tool result may put in front of the model outside code mode. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

/** Results a search returns when it does not say, and full schemas directory mode shows up front: unless their caps are lower. */
const SEARCH_DEFAULT_LIMIT = 8;
const LIKELY_SCHEMAS = 4;

/** Directory mode's text; a number outside its range is CONFIG_INVALID naming the key, the range and the value. */
const directorySchema = object({
  /** The directory text's size, characters (default 18000). */
  maxChars: withDefault(int(500, 200_000), 18_000),
  /** Each tool's summary in the directory, characters (default 180). */
  descriptionChars: withDefault(int(20, 1_000), 180),
  /**
   * Full schemas shown up front, picked by searching the prompt (default 4, or maxLikelySchemas
   * when that is lower: defaulted by resolveToolSearchConfig, as it follows maxLikelySchemas).
   */
  likelySchemas: int(0, 12),
  /** The cap on likelySchemas (default 12). */
  maxLikelySchemas: withDefault(int(0, 12), 12),
});

/** Directory mode's settings resolved: every one present. */
export type DirectorySettings = Required<Filled<typeof directorySchema>>;

/**
 * The object form of ToolSearchConfig: every key optional, each with its range and default (a
 * number outside its range is CONFIG_INVALID naming the key, the range and the value).
 */
const toolSearchObjectSchema = object(
  {
    /** How the model reaches the catalog (default "code"). */
    mode: withDefault(oneOf(TOOL_SEARCH_MODES), "code"),
    /** The wall-clock limit of one code-mode body, ms (default 10000). */
    codeTimeoutMs: withDefault(int(1_000, 60_000), 10_000),
    /**
     * Hits per search when none is asked for (default 8, or maxSearchLimit when that is lower:
     * defaulted by resolveToolSearchConfig, as it follows maxSearchLimit).
     */
    searchDefaultLimit: int(1, 50),
    /** The most hits per search; a batch of queries shares this budget (default 20). */
    maxSearchLimit: withDefault(int(1, 50), 20),
    /** A tool result's text past this many UTF-8 bytes is cut, with a marker, before the model sees it (not code mode; default 1 MiB). */
    maxResultBytes: withDefault(int(1_024, 64 * 1024 * 1024), DEFAULT_MAX_RESULT_BYTES),
    /** Index snapshots by catalog fingerprint in this folder (shared by workers and replicas); none when unset. */
    indexCacheDir: string({ minLength: 1 }),
    /** HMAC key of the snapshots in indexCacheDir: only snapshots written with it are used. */
    indexCacheKey: string({ minLength: MIN_SNAPSHOT_KEY_LENGTH }),
    /** The environment variable that holds indexCacheKey (read by resolveIndexCacheKey). */
    indexCacheKeyEnv: string({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }),
    /** Learning from use (learning/options.ts): off in the library unless set, on in `serve` and `mcp`. */
    learning: learningSchema as Named<LearningConfig, typeof learningSchema>,
    directory: withDefault(directorySchema, {}),
  },
  {
    description:
      "true, false or an object { mode, codeTimeoutMs, searchDefaultLimit, maxSearchLimit, maxResultBytes, directory, indexCacheDir, indexCacheKey, indexCacheKeyEnv, learning }",
  },
);

/** The object form of ToolSearchConfig, every key optional: toolSearchObjectSchema documents each one, its range and default. */
export type ToolSearchObject = TypeOf<typeof toolSearchObjectSchema>;

/**
 * The `toolSearch` value as users write it, in createToolSearch's options or the config file's
 * `tools.toolSearch`: `true` (code mode), `false` (direct) or a ToolSearchObject. Resolved into
 * ToolSearchSettings. Not the options of createToolSearch as a whole (CreateToolSearchOptions).
 */
export type ToolSearchConfig = boolean | ToolSearchObject;

/** The object as its schema leaves it: every key with a `default` present. */
type CheckedObject = Filled<typeof toolSearchObjectSchema>;

/** `T` with the keys of `R` present and typed as `R` has them; mapped over `keyof T`, so that each key keeps its doc comment. */
type Resolved<T, R> = Flat<{ [K in keyof T as K extends keyof R ? never : K]: T[K] } & { [K in keyof T as K extends keyof R ? K : never]-?: R[K & keyof R] }>;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * The `toolSearch` value resolved: every default applied (resolveToolSearchConfig). What the engine and the surfaces read (`engine.settings`); not what
 * users write, which is ToolSearchConfig.
 */
export type ToolSearchSettings = Resolved<CheckedObject, { searchDefaultLimit: number; directory: DirectorySettings; learning: ResolvedLearningOptions }>;

const check = compileOptions("toolSearch", toolSearchObjectSchema);

/** The settings of `true` (or no value): the schema's defaults, and those that follow them, as withDefaults fills them in. */
export const DEFAULT_SETTINGS: ToolSearchSettings = withDefaults(defaultsOf(toolSearchObjectSchema), "tools.toolSearch");

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
 * The object as checked (its schema's defaults in), with the defaults that follow another key
 * and the learning options. A default limit not set follows a smaller cap; one set above its cap
 * is refused (refuseAboveCap), never cut.
 */
function withDefaults(value: CheckedObject, path: string): ToolSearchSettings {
  const { maxSearchLimit, directory } = value;
  const { maxLikelySchemas } = directory;
  refuseAboveCap(`${path}.searchDefaultLimit`, value.searchDefaultLimit, `${path}.maxSearchLimit`, maxSearchLimit);
  refuseAboveCap(`${path}.directory.likelySchemas`, directory.likelySchemas, `${path}.directory.maxLikelySchemas`, maxLikelySchemas);
  return {
    mode: value.mode,
    codeTimeoutMs: value.codeTimeoutMs,
    maxSearchLimit,
    searchDefaultLimit: value.searchDefaultLimit ?? Math.min(SEARCH_DEFAULT_LIMIT, maxSearchLimit),
    directory: { ...directory, likelySchemas: directory.likelySchemas ?? Math.min(LIKELY_SCHEMAS, maxLikelySchemas) },
    maxResultBytes: value.maxResultBytes,
    learning: resolveLearning(value.learning, LIBRARY_LEARNING_DEFAULT),
    ...definedProps({ indexCacheDir: value.indexCacheDir, indexCacheKey: value.indexCacheKey, indexCacheKeyEnv: value.indexCacheKeyEnv }),
  };
}

/** A default (`searchDefaultLimit`, `likelySchemas`) set above its cap is CONFIG_INVALID naming both. */
function refuseAboveCap(key: string, value: number | undefined, capKey: string, cap: number): void {
  if (value !== undefined && value > cap) {
    throw new ConfigInvalidError(`${key}: must be at most ${capKey} (${cap}); got ${value} (number)`);
  }
}
