/**
 * The one place options are checked and their errors worded. Every option set (createToolSearch,
 * the run context, pool, mcpServer, the config file, the gateway's request bodies) is an ajv
 * schema here or next to its type, with its defaults and ranges; `checkOptions` applies them and
 * `describeAjvErrors` words every failure the same way: the option, what is allowed, and the
 * value given. Tool arguments (INVALID_ARGS) use the same formatter without echoing values.
 */
import { Ajv, type ErrorObject } from "ajv";
import { ConfigInvalidError } from "../errors.js";
import { closestWord } from "./closest-word.js";
import { linearRegExpEngine } from "./linear-regexp.js";
import { useLinearUniqueItems } from "./unique-items.js";

/**
 * ajv for the engine's own option schemas (not tool schemas): defaults applied, every error
 * reported, each error with its schema (`verbose`) so that messages can say what is allowed.
 * `methods: ["run", "report"]` accepts an object with those functions (pools, sinks, sources);
 * `function: true` a function (hooks).
 */
function createOptionsAjv(): Ajv {
  // strictRequired is off: `oneOf: [{ required: [a] }, { required: [b] }]` names properties declared one level up.
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false, verbose: true });
  ajv.addKeyword({
    keyword: "methods",
    schemaType: "array",
    validate: (names: string[], data: unknown) =>
      typeof data === "object" && data !== null && names.every((n) => typeof (data as Record<string, unknown>)[n] === "function"),
  });
  ajv.addKeyword({ keyword: "function", schemaType: "boolean", validate: (_: boolean, data: unknown) => typeof data === "function" });
  return ajv;
}

let optionsAjv: Ajv | undefined;

/**
 * A compiled option schema: `check(value, root)` returns a copy of `value` with the defaults filled
 * in (the caller's objects are not touched), or throws CONFIG_INVALID naming what is wrong under
 * `root`. `shown` is what messages may quote (a copy without secrets).
 */
export function compileOptions<T>(schema: Record<string, unknown>, options: { copy?: boolean } = {}): (value: unknown, root: string, shown?: unknown) => T {
  optionsAjv ??= createOptionsAjv();
  const validate = optionsAjv.compile(schema);
  // `copy: false` for values that are already ours (a request body parsed for this call): a deep
  // copy of a 1 MiB body per request is pure garbage on the shared event loop.
  const copyOf = options.copy === false ? (value: unknown) => value : copyPlain;
  return (value, root, shown = value) => {
    const copy = copyOf(value);
    if (!validate(copy)) throw new ConfigInvalidError(describeAjvErrors(root, validate.errors, { values: shown }));
    return copy as T;
  };
}

/** Plain data (arrays, objects of data) copied; anything with behaviour (class instances, objects with methods) shared as is. */
function copyPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyPlain);
  if (typeof value !== "object" || value === null) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if ((proto !== Object.prototype && proto !== null) || Object.values(value).some((v) => typeof v === "function")) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyPlain(v)]));
}

/** An integer option: its range, and its default when it has one. */
export function int(minimum: number, maximum: number, fallback?: number): Record<string, unknown> {
  return { type: "integer", minimum, maximum, ...(fallback !== undefined ? { default: fallback } : {}) };
}

/**
 * ajv for tool input schemas written by others: lenient about unknown keywords and formats, and
 * bounded in time on whatever arguments a model sends: patterns run on RE2 (linear time) and
 * `uniqueItems` is linear. `untrusted` (client and MCP schemas) also turns off the inlining of
 * `$ref`s, so that a schema of nested references compiles in time linear in its size instead of
 * doubling per level.
 */
export function createToolAjv(options: { untrusted?: boolean } = {}): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    addUsedSchema: false,
    validateFormats: false,
    code: { regExp: linearRegExpEngine },
    ...(options.untrusted ? { inlineRefs: false } : {}),
  });
  return useLinearUniqueItems(ajv);
}

interface Wording {
  /** The data the errors are about, to show the bad value; absent: values are not echoed (tool arguments). */
  values?: unknown;
  /** "option" (config) or "field" (tool arguments). */
  noun?: string;
}

/**
 * `path: must be …; got <value> (<type>)` lines, one per bad place, up to three: an integer's
 * range, an enum's values, or the schema's `description` say what is allowed; unknown and
 * missing keys are named.
 */
export function describeAjvErrors(root: string, errors: readonly ErrorObject[] | null | undefined, wording: Wording = {}): string {
  if (!errors || errors.length === 0) return `${root}: invalid`;
  const { noun = "option" } = wording;
  const shows = "values" in wording;
  const lines = new Map<string, string>();
  // A schema with a description says at once what a place allows (its anyOf branches need not).
  const described = errors.filter((e) => typeof e.parentSchema?.description === "string" && e.keyword !== "required" && e.keyword !== "if");
  const describedPaths = new Set(described.map((e) => e.instancePath));
  const composite = new Set(["if", "anyOf", "oneOf"]);
  // An unknown key comes first: it is usually the typo that also made a required key "missing".
  const visible = errors
    .filter((e) => !composite.has(e.keyword))
    .sort((a, b) => Number(b.keyword === "additionalProperties") - Number(a.keyword === "additionalProperties"));
  for (const error of [...described, ...(visible.length > 0 ? visible : errors)]) {
    const pointer = error.instancePath
      .split("/")
      .slice(1)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    const params = error.params as Record<string, unknown>;
    const key = `${error.instancePath}/${String(params.missingProperty ?? params.additionalProperty ?? "")}`;
    if (lines.has(key) || (error.keyword === "required" && describedPaths.has(error.instancePath))) continue;
    const path = [root, ...pointer].filter(Boolean).join(".");
    const got = shows ? `; got ${show(valueAt(wording.values, pointer))}` : "";
    const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
    const range = schema.type === "integer" && schema.minimum !== undefined && schema.maximum !== undefined;
    if (error.keyword === "additionalProperties") {
      const allowed = Object.keys((schema.properties ?? {}) as object);
      const meant = closestWord(String(params.additionalProperty), allowed);
      const hint = meant ? ` (did you mean "${meant}"?)` : "";
      lines.set(
        key,
        `${path}: unknown ${noun} "${String(params.additionalProperty)}"${hint}${shows && allowed.length > 0 ? `; allowed: ${allowed.join(", ")}` : ""}`,
      );
      continue;
    }
    if (error.keyword === "required") {
      const missing = String(params.missingProperty);
      const wanted = ((schema.properties ?? {}) as Record<string, { description?: string }>)[missing]?.description;
      lines.set(key, wanted ? `${path}.${missing}: must be ${wanted}${shows ? "; got undefined" : ""}` : `${path}: missing required ${noun} "${missing}"`);
      continue;
    }
    const what = range
      ? `must be an integer from ${String(schema.minimum)} to ${String(schema.maximum)}`
      : error.keyword === "enum"
        ? `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`
        : typeof schema.description === "string"
          ? `must be ${schema.description}`
          : error.keyword === "function"
            ? "must be a function"
            : (error.message ?? "is invalid");
    lines.set(key, `${path}: ${what}${got}`);
  }
  return [...lines.values()].slice(0, 3).join("; ");
}

function valueAt(data: unknown, pointer: readonly string[]): unknown {
  let current: unknown = data;
  for (const key of pointer) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A value as a message shows it: JSON clipped to 80 characters, and its type. */
export function show(value: unknown): string {
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  if (typeof value === "function") return "a function";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return `${text.length > 80 ? `${text.slice(0, 77)}...` : text} (${type})`;
}
