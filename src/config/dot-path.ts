/** get/set/unset by dotted path (`tools.toolSearch.mode`) on plain JSON objects. */
import { ConfigInvalidError } from "../errors.js";

export type JsonObject = Record<string, unknown>;

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A path that is not a config path: `toolsearch config` answers it with its usage (config-command.ts). */
export class ConfigPathError extends ConfigInvalidError {}

export function parsePath(path: string): string[] {
  const segments = path.split(".");
  if (path.length === 0 || !segments.every((s) => SEGMENT.test(s))) {
    throw new ConfigPathError(`"${path}" is not a config path; use dotted names like tools.toolSearch.mode`);
  }
  if (segments.some((s) => s === "__proto__" || s === "constructor" || s === "prototype"))
    throw new ConfigPathError(`"${path}" is not allowed as a config path`);
  return segments;
}

export function getPath(root: unknown, segments: readonly string[]): unknown {
  let current = root;
  for (const key of segments) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * Sets a value, creating objects on the way. A boolean on the way becomes an object, because
 * `tools.toolSearch: true` followed by `set tools.toolSearch.mode directory` means "turn the
 * shorthand into settings"; `true` keeps its meaning (code mode) through the defaults.
 */
export function setPath(root: JsonObject, segments: readonly string[], value: unknown): JsonObject {
  const copy = structuredClone(root);
  let current: JsonObject = copy;
  segments.slice(0, -1).forEach((key) => {
    const next = current[key];
    if (!isObject(next)) current[key] = next === false ? { mode: "direct" } : {};
    current = current[key] as JsonObject;
  });
  current[segments.at(-1)!] = value;
  return copy;
}

export function unsetPath(root: JsonObject, segments: readonly string[]): { result: JsonObject; removed: boolean } {
  const copy = structuredClone(root);
  const parent = getPath(copy, segments.slice(0, -1));
  const key = segments.at(-1)!;
  if (!isObject(parent) || !Object.hasOwn(parent, key)) return { result: copy, removed: false };
  delete parent[key];
  return { result: copy, removed: true };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
