/**
 * MCP tool names may hold characters our tool-name rule (`^[A-Za-z0-9_.\-]{1,128}$`) does not
 * allow (spaces, slashes, colons, non-ASCII). Each is mapped to a valid catalog name; the
 * original is kept for `tools/call`.
 *
 * Deterministic, whatever order the server lists its tools in: names that are already valid
 * keep themselves; the others become their sanitized form (every disallowed character → "_",
 * cut to 128), and where that collides, suffixes `_2`, `_3`, … are given in code-unit order of
 * the original names.
 */

const VALID = /^[A-Za-z0-9_.-]{1,128}$/;
const MAX = 128;

export function isValidToolName(name: string): boolean {
  return VALID.test(name);
}

export function sanitizeToolName(name: string): string {
  const replaced = Array.from(name, (ch) => (/^[A-Za-z0-9_.-]$/.test(ch) ? ch : "_")).join("");
  const cut = replaced.slice(0, MAX);
  return cut.length > 0 ? cut : "tool";
}

/** original name → catalog name, for every distinct original name given. */
export function mapToolNames(originals: readonly string[]): Map<string, string> {
  const unique = [...new Set(originals)];
  const result = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of unique) {
    if (isValidToolName(name)) {
      result.set(name, name);
      taken.add(name);
    }
  }
  const rest = unique.filter((name) => !result.has(name)).sort(compareCodeUnits);
  for (const name of rest) {
    const base = sanitizeToolName(name);
    let candidate = base;
    for (let n = 2; taken.has(candidate); n += 1) {
      const suffix = `_${n}`;
      candidate = `${base.slice(0, MAX - suffix.length)}${suffix}`;
    }
    result.set(name, candidate);
    taken.add(candidate);
  }
  return result;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
