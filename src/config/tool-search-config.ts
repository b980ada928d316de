/**
 * The `tools.toolSearch` value: `true` (code mode), `false` (direct), or an object. Validated
 * with ajv once, at the edge, and defaulted here and nowhere else.
 */
import type { JSONSchemaType } from "ajv";
import { ConfigInvalidError } from "../errors.js";
import { createOptionsAjv, describeAjvErrors } from "./ajv.js";

export type ToolSearchMode = "direct" | "code" | "tools" | "directory";
export const TOOL_SEARCH_MODES: readonly ToolSearchMode[] = ["direct", "code", "tools", "directory"];

export interface DirectorySettings {
  maxChars: number;
  descriptionChars: number;
  likelySchemas: number;
  maxLikelySchemas: number;
}

export interface ToolSearchSettings {
  mode: ToolSearchMode;
  codeTimeoutMs: number;
  searchDefaultLimit: number;
  maxSearchLimit: number;
  directory: DirectorySettings;
  /** A tool result's text past this many UTF-8 bytes is cut, with a marker, before the model sees it (not code mode). */
  maxResultBytes: number;
}

/** 1 MiB: what a tool result may put in front of the model outside code mode. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

export interface ToolSearchObject {
  mode?: ToolSearchMode;
  codeTimeoutMs?: number;
  searchDefaultLimit?: number;
  maxSearchLimit?: number;
  directory?: Partial<DirectorySettings>;
  maxResultBytes?: number;
}

export type ToolSearchConfig = boolean | ToolSearchObject;

export const DEFAULT_SETTINGS: ToolSearchSettings = {
  mode: "code",
  codeTimeoutMs: 10_000,
  searchDefaultLimit: 8,
  maxSearchLimit: 20,
  directory: { maxChars: 18_000, descriptionChars: 180, likelySchemas: 4, maxLikelySchemas: 12 },
  maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
};

/** Numbers outside these ranges are clamped, not rejected (docs/configuration.md). */
const RANGES = {
  codeTimeoutMs: [1_000, 60_000],
  searchLimit: [1, 50],
  maxChars: [500, 200_000],
  descriptionChars: [20, 1_000],
  likelySchemas: [0, 12],
  maxResultBytes: [1_024, 64 * 1024 * 1024],
} as const;

const integer = { type: "integer" } as const;
const objectSchema: JSONSchemaType<ToolSearchObject> = {
  type: "object",
  additionalProperties: false,
  properties: {
    mode: { type: "string", enum: ["direct", "code", "tools", "directory"], nullable: true },
    codeTimeoutMs: { ...integer, nullable: true },
    searchDefaultLimit: { ...integer, nullable: true },
    maxSearchLimit: { ...integer, nullable: true },
    maxResultBytes: { ...integer, nullable: true },
    directory: {
      type: "object",
      nullable: true,
      additionalProperties: false,
      required: [],
      properties: {
        maxChars: { ...integer, nullable: true },
        descriptionChars: { ...integer, nullable: true },
        likelySchemas: { ...integer, nullable: true },
        maxLikelySchemas: { ...integer, nullable: true },
      },
    },
  },
  required: [],
};

const validateObject = createOptionsAjv().compile(objectSchema);

/** The JSON Schema of the config value, for tools (CLI, editors) that want it. */
export const toolSearchConfigSchema: Record<string, unknown> = { anyOf: [{ type: "boolean" }, objectSchema] };

export function resolveToolSearchConfig(value: unknown, path = "tools.toolSearch"): ToolSearchSettings {
  if (value === undefined || value === true) return structuredClone(DEFAULT_SETTINGS);
  if (value === false) return { ...structuredClone(DEFAULT_SETTINGS), mode: "direct" };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigInvalidError(`${path}: must be true, false or an object { mode, codeTimeoutMs, searchDefaultLimit, maxSearchLimit, maxResultBytes, directory }; got ${JSON.stringify(value)}`);
  }
  const copy = structuredClone(value) as ToolSearchObject;
  if (!validateObject(copy)) throw new ConfigInvalidError(describeAjvErrors(path, validateObject.errors, copy));
  return withDefaults(copy);
}

function withDefaults(value: ToolSearchObject): ToolSearchSettings {
  const d = DEFAULT_SETTINGS;
  const maxSearchLimit = clamp(value.maxSearchLimit ?? d.maxSearchLimit, RANGES.searchLimit);
  const maxLikelySchemas = clamp(value.directory?.maxLikelySchemas ?? d.directory.maxLikelySchemas, RANGES.likelySchemas);
  return {
    mode: value.mode ?? d.mode,
    codeTimeoutMs: clamp(value.codeTimeoutMs ?? d.codeTimeoutMs, RANGES.codeTimeoutMs),
    maxSearchLimit,
    searchDefaultLimit: Math.min(clamp(value.searchDefaultLimit ?? d.searchDefaultLimit, RANGES.searchLimit), maxSearchLimit),
    directory: {
      maxChars: clamp(value.directory?.maxChars ?? d.directory.maxChars, RANGES.maxChars),
      descriptionChars: clamp(value.directory?.descriptionChars ?? d.directory.descriptionChars, RANGES.descriptionChars),
      maxLikelySchemas,
      likelySchemas: Math.min(clamp(value.directory?.likelySchemas ?? d.directory.likelySchemas, RANGES.likelySchemas), maxLikelySchemas),
    },
    maxResultBytes: clamp(value.maxResultBytes ?? d.maxResultBytes, RANGES.maxResultBytes),
  };
}

function clamp(value: number, [min, max]: readonly [number, number]): number {
  return Math.min(max, Math.max(min, value));
}
