/** The package's version, read from its package.json (one or two folders up: src/ or dist/src/). */
import { readFileSync } from "node:fs";

let cached: string | undefined;

export function packageVersion(): string {
  if (cached !== undefined) return cached;
  for (const relative of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8")) as { name?: unknown; version?: unknown };
      if (pkg.name === "toolsearch" && typeof pkg.version === "string") return (cached = pkg.version);
    } catch {
      // not there: try the next
    }
  }
  return (cached = "0.0.0");
}
