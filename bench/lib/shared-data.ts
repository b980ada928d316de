/**
 * Locates the read-only shared data (../shared/data beside the repository) and turns its
 * files into SearchDocs and judged queries. Callers decide what to do when it is absent.
 * Bounds annotations as the catalog does on purpose: imports src/catalog/annotations.ts directly.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { boundAnnotations } from "../../src/catalog/annotations.js";
import type { SearchDoc } from "../../src/index.js";
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
function sealToolId(apiName: string): string {
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
      toolset: "seal",
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
      docs.push({ id: `mcp:${pkg}:${name}`, name, source: "mcp", toolset: pkg, description: tool.description ?? "", params: [] });
    }
  }
  return docs;
}

interface LiveMcpTool {
  name: string;
  description?: string | null;
  inputSchema?: { properties?: Record<string, { description?: unknown }> };
  /** MCP tool annotations, as the servers listed them (some hints null). */
  annotations?: unknown;
}

interface LiveMcpEntry {
  tools?: Record<string, { tools?: LiveMcpTool[] }>;
}

/** LiveMCPBench's 527 tools as MCP tools `mcp:<server>:<tool>` (server as keyed in tools.json). */
export function loadLiveMcpTools(dataDir: string): SearchDoc[] {
  const entries = JSON.parse(readFileSync(path.join(dataDir, "livemcpbench/tools.json"), "utf8")) as LiveMcpEntry[];
  const docs: SearchDoc[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    for (const [server, info] of Object.entries(entry.tools ?? {})) {
      for (const tool of info.tools ?? []) {
        const id = `mcp:${server}:${tool.name}`;
        if (seen.has(id)) continue;
        seen.add(id);
        // The same bounds as the catalog's search docs (src/catalog/search-doc.ts).
        const params = Object.entries(tool.inputSchema?.properties ?? {})
          .slice(0, 40)
          .map(([name, p]) => ({ name, description: typeof p?.description === "string" ? p.description.slice(0, 300) : "" }));
        const annotations = boundAnnotations(tool.annotations);
        docs.push({
          id,
          name: tool.name,
          source: "mcp",
          toolset: server,
          description: (tool.description ?? "").slice(0, 2000),
          params,
          ...(annotations ? { annotations } : {}),
        });
      }
    }
  }
  return docs;
}

/**
 * The 80 written requests over LiveMCPBench tools. Every 4th one (index % 4 === 3) is held
 * out: tuning looks at the others, and the held-out ones say whether a change generalises.
 */
export function loadLiveMcpQueries(dataDir: string, part: "all" | "tune" | "held-out" = "all"): JudgedQuery[] {
  const raw = JSON.parse(readFileSync(path.join(dataDir, "livemcpbench/dev-queries.json"), "utf8")) as Array<{ q: string; ok: string[] }>;
  return raw
    .map((r, i) => ({ id: `dev-${i}`, query: r.q, relevant: r.ok.map((key) => `mcp:${key}`), heldOut: i % 4 === 3 }))
    .filter((q) => part === "all" || (part === "held-out") === q.heldOut)
    .map(({ id, query, relevant }) => ({ id, query, relevant }));
}

interface MetaToolTool {
  id: string;
  name: string;
  description?: string | null;
}

/** MetaTool ids: every ChatGPT plugin as a plugin tool of one plugin, `plugin:metatool:<id>`. */
function metaToolId(id: string): string {
  return `plugin:metatool:${id}`;
}

/** MetaTool's 199 plugins: a name and a one-line description each, no parameters. */
export function loadMetaToolTools(dataDir: string): SearchDoc[] {
  const raw = JSON.parse(readFileSync(path.join(dataDir, "metatool/tools.json"), "utf8")) as MetaToolTool[];
  return raw.map((t) => ({ id: metaToolId(t.id), name: t.name, source: "plugin", toolset: "metatool", description: t.description ?? "", params: [] }));
}

/**
 * MetaTool's labelled requests of one split (`tune`: 4/5, `validate`: 1/5, fixed by the data
 * set); a hit is any of the plugins a request names.
 */
export function loadMetaToolQueries(dataDir: string, split: "tune" | "validate"): JudgedQuery[] {
  const out: JudgedQuery[] = [];
  (readJsonl(path.join(dataDir, "metatool/queries.jsonl")) as Array<{ query: string; ok: string[]; split: string }>).forEach((q, i) => {
    if (q.split === split) out.push({ id: `metatool-${i}`, query: q.query, relevant: q.ok.map(metaToolId) });
  });
  return out;
}
