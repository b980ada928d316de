/**
 * Locates the read-only shared data (../shared/data beside the repository) and turns its
 * files into SearchDocs and judged queries. Callers decide what to do when it is absent.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SearchDoc } from "../../src/search/types.js";
import type { JudgedQuery } from "./relevance.js";

/** The repository root, whether this file runs from bench/lib (TS) or dist/bench/lib (JS). */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("package.json not found above bench/lib");
    dir = parent;
  }
  return dir;
}

/** `../shared/data` beside the repository (or $TOOLSEARCH_DATA), or undefined when absent. */
export function sharedDataDir(): string | undefined {
  const dir = process.env["TOOLSEARCH_DATA"] ?? path.resolve(repoRoot(), "../shared/data");
  return existsSync(dir) ? dir : undefined;
}

function readJsonl(file: string): unknown[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown);
}

interface SealTool {
  api_name: string;
  api_description: string;
  parameters?: Record<string, { type?: string; description?: string }>;
}

interface SealQuery {
  id: string;
  query: string;
  calling: Array<{ api: string }>;
}

/** Seal-Tools ids: every tool as a plugin tool of one plugin, `plugin:seal:<api_name>`. */
export function sealToolId(apiName: string): string {
  return `plugin:seal:${apiName}`;
}

export function loadSealTools(dataDir: string): SearchDoc[] {
  const seen = new Set<string>();
  const docs: SearchDoc[] = [];
  for (const raw of readJsonl(path.join(dataDir, "seal-tools/tool.jsonl")) as SealTool[]) {
    const id = sealToolId(raw.api_name);
    if (seen.has(id)) continue; // the data set repeats a few tools verbatim
    seen.add(id);
    docs.push({
      id,
      name: raw.api_name,
      source: "plugin",
      owner: "seal",
      description: raw.api_description ?? "",
      params: Object.entries(raw.parameters ?? {}).map(([name, p]) => ({ name, description: p.description ?? "" })),
    });
  }
  return docs;
}

export function loadSealQueries(dataDir: string, split: "dev" | "test_in_domain" = "dev"): JudgedQuery[] {
  return (readJsonl(path.join(dataDir, `seal-tools/${split}.jsonl`)) as SealQuery[]).map((q) => ({
    id: q.id,
    query: q.query,
    relevant: [...new Set(q.calling.map((c) => sealToolId(c.api)))],
  }));
}

interface RegistryPackage {
  category?: string;
  tools?: Record<string, { name?: string; description?: string }>;
}

/** toolsdk-registry: every tool of every package as an MCP tool `mcp:<package>:<tool>`. */
export function loadRegistryTools(dataDir: string): SearchDoc[] {
  const file = path.join(dataDir, "toolsdk-registry/packages-list.json");
  const packages = JSON.parse(readFileSync(file, "utf8")) as Record<string, RegistryPackage>;
  const docs: SearchDoc[] = [];
  for (const [pkg, info] of Object.entries(packages)) {
    for (const [key, tool] of Object.entries(info.tools ?? {})) {
      const name = tool.name ?? key;
      docs.push({ id: `mcp:${pkg}:${name}`, name, source: "mcp", owner: pkg, description: tool.description ?? "", params: [] });
    }
  }
  return docs;
}
