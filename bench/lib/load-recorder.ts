/**
 * Records every module a process loads, ES modules and CommonJS alike, one URL or path a line,
 * into the file named by $TOOLSEARCH_LOAD_RECORD: `node --import dist/bench/lib/load-recorder.js
 * script.js`. ES modules are seen by a `load` hook (module.register; it runs on the loader's
 * thread and appends there), CommonJS ones by wrapping `Module._load` (a package required from
 * CommonJS never reaches the ES hooks). bench/import reports which packages an entry point loads,
 * and test/architecture/light-import.test.ts fails when the root entry loads one it must not.
 */
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const file = process.env["TOOLSEARCH_LOAD_RECORD"];
if (file !== undefined && file !== "") {
  register(new URL("./load-recorder-hooks.js", import.meta.url), { data: { file } });
  const Module = createRequire(import.meta.url)("node:module") as {
    _load(request: string, parent: unknown, isMain: boolean): unknown;
    _resolveFilename(request: string, parent: unknown, isMain: boolean): string;
  };
  const load = Module._load;
  Module._load = function (this: unknown, request: string, parent: unknown, isMain: boolean): unknown {
    try {
      appendFileSync(file, `${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {
      // A request that does not resolve fails in load below, as it would without the recorder.
    }
    return load.call(this, request, parent, isMain);
  };
}

/** The npm packages among recorded URLs and paths (`@scope/name` or `name`), sorted. */
export function packagesOf(recorded: readonly string[]): string[] {
  const names = new Set<string>();
  for (const entry of recorded) {
    const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(entry);
    if (match) names.add(match[1]!.replace("\\", "/"));
  }
  return [...names].sort();
}
