/**
 * The replay sets: a catalog as real tool definitions, the past requests that are replayed and
 * the held-out requests that are scored. Each set has several requests per tool:
 * - MetaTool: 199 tools; `tune` (16,426 single-tool requests) replayed, `validate` (4,118) scored;
 * - Seal-Tools: 4,076 tools; `dev` (700) replayed, `test_in_domain` (700) scored;
 * - LiveMCPBench: 527 real MCP tools; the 80 written requests split as everywhere (every 4th held out).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ToolDefinition, SearchDoc } from "../../src/index.js";
import type { JudgedQuery } from "../lib/relevance.js";
import { scaleCatalog } from "../search/workload.js";
import { loadLiveMcpQueries, loadLiveMcpTools, loadSealQueries, loadSealTools } from "../lib/shared-data.js";

export interface ReplaySet {
  name: string;
  /** Tools by plugin id: ids are `plugin:<toolset>:<name>`. */
  plugins: Map<string, ToolDefinition[]>;
  past: JudgedQuery[];
  heldOut: JudgedQuery[];
}

const ok = () => ({ ok: true });

/** A plugin id for a toolset name ("Ant Design Components" → "Ant_Design_Components"). */
function pluginId(toolset: string): string {
  return toolset.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64) || "tools";
}

/** Docs as tool definitions (parameters optional: the replayed model's calls carry no arguments), and old id → new id. */
export function asPlugins(
  docs: readonly SearchDoc[],
  toolsetOf: (doc: SearchDoc) => string,
): { plugins: Map<string, ToolDefinition[]>; ids: Map<string, string> } {
  const plugins = new Map<string, ToolDefinition[]>();
  const ids = new Map<string, string>();
  for (const doc of docs) {
    const toolset = pluginId(toolsetOf(doc));
    const list = plugins.get(toolset) ?? [];
    if (list.some((d) => d.name === doc.name)) continue;
    list.push({
      name: doc.name,
      description: doc.description,
      inputSchema: { type: "object", properties: Object.fromEntries(doc.params.map((p) => [p.name, { type: "string", description: p.description }])) },
      execute: ok,
    });
    plugins.set(toolset, list);
    ids.set(doc.id, `plugin:${toolset}:${doc.name}`);
  }
  return { plugins, ids };
}

function relabel(queries: readonly JudgedQuery[], ids: ReadonlyMap<string, string>): JudgedQuery[] {
  return queries.flatMap((q) => {
    const relevant = q.relevant.flatMap((id) => (ids.has(id) ? [ids.get(id)!] : []));
    return relevant.length > 0 ? [{ ...q, relevant }] : [];
  });
}

interface MetaToolRaw {
  query: string;
  ok: string[];
  split: "tune" | "validate";
  multi?: boolean;
}

export function metaToolSet(dataDir: string): ReplaySet {
  const tools = JSON.parse(readFileSync(path.join(dataDir, "metatool/tools.json"), "utf8")) as Array<{ id: string; name: string; description: string }>;
  const docs: SearchDoc[] = tools.map((t) => ({ id: t.id, name: t.name, source: "plugin", toolset: "metatool", description: t.description ?? "", params: [] }));
  const { plugins, ids } = asPlugins(docs, () => "metatool");
  const raw = readFileSync(path.join(dataDir, "metatool/queries.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as MetaToolRaw);
  // Single-tool requests, as the figures (validate: 4,118).
  const judged = (split: MetaToolRaw["split"]) =>
    raw.filter((r) => r.split === split && r.multi !== true).map((r, i) => ({ id: `${split}-${i}`, query: r.query, relevant: r.ok }));
  return { name: "metatool", plugins, past: relabel(judged("tune"), ids), heldOut: relabel(judged("validate"), ids) };
}

export function sealSet(dataDir: string): ReplaySet {
  const { plugins, ids } = asPlugins(loadSealTools(dataDir), () => "seal");
  return {
    name: "seal-tools",
    plugins,
    past: relabel(loadSealQueries(dataDir, "dev"), ids),
    heldOut: relabel(loadSealQueries(dataDir, "test_in_domain"), ids),
  };
}

/**
 * Seal-Tools' catalog copied up to `tools` tools (copies renamed `<name>_<n>`, as bench/search
 * scales it), with the same requests (they name the first copy). Returns the docs too, for
 * the in-memory BM25 yardstick.
 */
export function scaledSealSet(dataDir: string, tools: number): ReplaySet & { docs: SearchDoc[] } {
  const docs = scaleCatalog(loadSealTools(dataDir), tools);
  const { plugins, ids } = asPlugins(docs, () => "seal");
  return {
    name: `seal-tools×${tools}`,
    docs,
    plugins,
    past: relabel(loadSealQueries(dataDir, "dev"), ids),
    heldOut: relabel(loadSealQueries(dataDir, "test_in_domain"), ids),
  };
}

export function liveMcpSet(dataDir: string): ReplaySet {
  const { plugins, ids } = asPlugins(loadLiveMcpTools(dataDir), (doc) => doc.toolset);
  return {
    name: "livemcpbench",
    plugins,
    past: relabel(loadLiveMcpQueries(dataDir, "tune"), ids),
    heldOut: relabel(loadLiveMcpQueries(dataDir, "held-out"), ids),
  };
}

/** A fixed shuffle (by a hash of the request), so every run replays the same order. */
export function shuffled<T extends { query: string }>(items: readonly T[], salt = ""): T[] {
  const key = (q: T) => createHash("sha256").update(salt).update(q.query).digest("hex");
  return [...items]
    .map((q) => ({ q, k: key(q) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((x) => x.q);
}
