/**
 * Tool-id globs: `*` matches any run of characters (colons included, so `mcp:github:*` and
 * `core:*` work), `?` one character; everything else is literal. A pattern without a colon
 * names tools by their bare name in any source (`exec` matches `core:exec` and
 * `plugin:shell:exec`), which is what operators write in allow/deny lists.
 * Hand-written because path globbers (picomatch, minimatch) give `*` path semantics.
 */
export type IdMatcher = (id: string, name: string) => boolean;

export function compileGlob(pattern: string): IdMatcher {
  const regex = new RegExp(`^${pattern.split("").map(globCharToRegex).join("")}$`, "i");
  const byId = pattern.includes(":");
  return byId ? (id) => regex.test(id) : (_id, name) => regex.test(name);
}

function globCharToRegex(char: string): string {
  if (char === "*") return ".*";
  if (char === "?") return ".";
  return char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
}

/** One matcher for a list of globs; an empty list matches nothing. */
export function compileGlobList(patterns: readonly string[]): IdMatcher {
  const matchers = patterns.map(compileGlob);
  return (id, name) => matchers.some((match) => match(id, name));
}
