/**
 * The operator's code costs nothing to whom does not use it: `import("toolsearch")` reaches no
 * file of src/admin, src/metrics or src/console (not even by a dynamic import), and the faces
 * load the metrics and the console only by dynamic import (`import type` aside), so a gateway
 * without `metrics` never loads the metrics code, and none loads the console's until asked.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readImports, ROOT } from "./import-graph.js";

const OPERATOR = ["src/admin/", "src/metrics/", "src/console/"];

describe("the operator's code is loaded only when used", () => {
  const sites = readImports();

  it("the package's root entry reaches none of it", () => {
    const reached = new Set(["src/index.ts"]);
    const queue = ["src/index.ts"];
    while (queue.length > 0) {
      const file = queue.shift()!;
      for (const site of sites) {
        if (site.file !== file || reached.has(site.target)) continue;
        reached.add(site.target);
        queue.push(site.target);
      }
    }
    expect([...reached].filter((file) => OPERATOR.some((folder) => file.startsWith(folder)))).toEqual([]);
  });

  it("outside their folders, the metrics and the console are imported only dynamically", () => {
    const lines = new Map<string, string[]>();
    const lineOf = (file: string, line: number) => {
      if (!lines.has(file)) lines.set(file, readFileSync(path.join(ROOT, file), "utf8").split("\n"));
      return lines.get(file)![line - 1] ?? "";
    };
    const eager = sites.filter((site) => {
      const lazyFolder = ["src/metrics/", "src/console/"].find((folder) => site.target.startsWith(folder));
      if (lazyFolder === undefined || site.file.startsWith(lazyFolder)) return false;
      const text = lineOf(site.file, site.line);
      return !/^\s*import type\b/.test(text) && !/\bimport\(/.test(text);
    });
    expect(eager.map((s) => `${s.file}:${s.line} ${s.specifier}`)).toEqual([]);
  });
});
