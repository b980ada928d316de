import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, readImports, type ImportSite } from "./import-graph.js";

/**
 * A bench measures the product through what a user imports: the package's entry points (package.json
 * "exports": src/index.ts, src/mcp/public.ts, ...). A bench that measures an internal on purpose
 * says so in its header comment, naming what it reaches below the entries:
 *
 *   Measures the index cache's snapshot store on purpose: imports src/search/storage/ directly.
 *
 * A name ending in "/" covers a folder; any other names one file (.ts or .js alike).
 */
const DECLARATION = /on purpose: imports ([\s\S]*?) directly/;

/** The source files the package's entry points are built from (./dist/src/x.js → src/x.ts). */
function publicEntries(): Set<string> {
  const pkg = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { import?: string }> };
  const entries = new Set<string>();
  for (const target of Object.values(pkg.exports)) {
    const file = typeof target === "string" ? target : target.import;
    if (file?.startsWith("./dist/src/")) entries.add(file.slice("./dist/".length).replace(/\.js$/, ".ts"));
  }
  return entries;
}

/** The src/ paths a file's header declares it imports on purpose (empty when it declares none). */
function declaredPaths(file: string): string[] {
  const text = readFileSync(resolve(ROOT, file), "utf8");
  const header = text.slice(0, text.search(/^(import|export)\s/m));
  const declaration = DECLARATION.exec(header);
  return declaration ? (declaration[1]!.match(/src\/[\w./-]*[\w/]/g) ?? []) : [];
}

function covers(declared: string, target: string): boolean {
  if (declared.endsWith("/")) return target.startsWith(declared);
  return target.replace(/\.ts$/, "") === declared.replace(/\.(ts|js)$/, "");
}

describe("bench/ imports", () => {
  const entries = publicEntries();
  const deep = readImports("bench").filter((site) => site.target.startsWith("src/") && !entries.has(site.target));
  const byFile = new Map<string, ImportSite[]>();
  for (const site of deep) byFile.set(site.file, [...(byFile.get(site.file) ?? []), site]);

  it("go through the package's entry points unless the file's header says it measures an internal on purpose", () => {
    const undeclared = deep
      .filter((site) => !declaredPaths(site.file).some((declared) => covers(declared, site.target)))
      .map((site) => `${site.file}:${site.line} imports "${site.specifier}" below the public entry; its header does not say so`);
    expect(undeclared).toEqual([]);
  });

  it("declare only what they still import below the entry points", () => {
    const stale = [...byFile].flatMap(([file, sites]) =>
      declaredPaths(file)
        .filter((declared) => !sites.some((site) => covers(declared, site.target)))
        .map((declared) => `${file} declares ${declared} but imports nothing there`),
    );
    expect(stale).toEqual([]);
  });

  it("knows the package's entry points and reads bench/'s imports", () => {
    expect(entries).toContain("src/index.ts");
    expect(entries).toContain("src/mcp/public.ts");
    expect(readImports("bench").some((site) => site.target === "src/index.ts")).toBe(true);
  });
});
