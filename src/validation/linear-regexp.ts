/**
 * JSON Schema `pattern` and `patternProperties` on a linear-time engine: RE2 compiled to WASM
 * (`@adguard/re2-wasm`). The JavaScript engine backtracks, so `^(a+)+$` against 30 "a"s and a
 * "!" holds the event loop for seconds; RE2 answers in time linear in the input. A pattern RE2
 * cannot take (lookaround, backreferences) is refused with a clear message rather than run on
 * the backtracking engine.
 */
import type re2 from "@adguard/re2-wasm";
import { lazyRequire } from "../lazy-require.js";
import { LruMap } from "./lru.js";
import { ConfigInvalidError, errorMessage } from "../errors.js";

/** RE2 (a WASM module) loads with the first pattern compiled, not with the package. */
const re2Module = lazyRequire<typeof re2>("@adguard/re2-wasm");

/** What ajv needs from a regular expression. */
export interface LinearRegExp {
  test(input: string): boolean;
  toString(): string;
}

/** ajv's `code.regExp` option: a factory with a `code` name (see ajv's RegExpEngine). */
export interface RegExpEngine {
  (pattern: string, flags: string): LinearRegExp;
  code: string;
}

/**
 * Compiled patterns, shared by every schema: a compile costs far more than a lookup, and the same few
 * patterns (dates, ids, emails) recur across tools. Bounded, so distinct patterns from
 * untrusted schemas cannot grow it. The RE2 objects live in WASM memory, which the garbage
 * collector does not free promptly (and embind warns on stderr when it has to), so this cache
 * owns them alone and frees each one explicitly when it is evicted; everything else (ajv's
 * compiled validators) holds a LinearRegExp that looks its pattern up here on each test.
 */
const compiled = new LruMap<string, Re2Instance | Error>(1_024, (_key, value) => {
  if (!(value instanceof Error)) release(value);
});

type Re2Instance = InstanceType<(typeof re2)["RE2"]>;

/** Longest pattern accepted (RE2's own program-size limit applies too). */
export const MAX_PATTERN_CHARS = 1_000;

/** A schema pattern the engine refuses to run: a bad config value (a client tool's or an MCP server's schema), so CONFIG_INVALID. */
export class UnsupportedPatternError extends ConfigInvalidError {}

/**
 * A linear-time matcher for `pattern`, or an UnsupportedPatternError that says why. The
 * pattern is compiled (or found in the cache) now, so a bad one fails here, at compile time.
 */
export function linearRegExp(pattern: string, flags = "u"): LinearRegExp {
  const key = `${flags}/${pattern}`;
  const first = lookup(key, pattern, flags);
  if (first instanceof Error) throw first;
  return {
    test(input: string): boolean {
      const re = lookup(key, pattern, flags);
      if (re instanceof Error) throw re;
      re.lastIndex = 0;
      return re.test(input);
    },
    // ajv keys its shared scope of regexes by this text: it must differ per pattern.
    toString: () => `/${pattern}/${flags}`,
  };
}

function lookup(key: string, pattern: string, flags: string): Re2Instance | Error {
  let found = compiled.get(key);
  if (found === undefined) {
    found = compile(pattern, flags);
    compiled.set(key, found);
  }
  return found;
}

function compile(pattern: string, flags: string): Re2Instance | Error {
  if (pattern.length > MAX_PATTERN_CHARS) {
    return new UnsupportedPatternError(`pattern of ${pattern.length} characters is over the ${MAX_PATTERN_CHARS}-character limit`);
  }
  try {
    // RE2 in WASM works in unicode mode only; JSON Schema patterns are unicode (ajv passes "u").
    return new (re2Module().RE2)(pattern, flags.includes("u") ? flags : `${flags}u`);
  } catch (error) {
    const why = errorMessage(error).replace(/^Invalid regular expression: /, "");
    return new UnsupportedPatternError(
      `pattern ${JSON.stringify(pattern.slice(0, 80))} is not supported by the linear-time regex engine (RE2: no lookaround or backreferences): ${why}`,
    );
  }
}

/** Frees an RE2's WASM object now (the package keeps it in a field its types call private). */
function release(re: Re2Instance): void {
  const wrapper = (re as unknown as { wrapper?: { delete?: () => void } }).wrapper;
  try {
    wrapper?.delete?.();
  } catch {
    // Already freed: nothing to do.
  }
}

/** The engine handed to ajv (`code: { regExp: linearRegExpEngine }`). */
export const linearRegExpEngine: RegExpEngine = Object.assign((pattern: string, flags: string) => linearRegExp(pattern, flags), {
  code: "linearRegExp",
});
