/**
 * The read-request safety check (issue 35): requests that only ask to read, list, find or show,
 * over real catalogs, and how many of them get a destructive tool (search/ranking/read-safety.ts
 * isDestructive: MCP `destructiveHint`, else the name's verb) as their first hit. The goal is
 * none. Three kinds of request:
 * - written ones over the real MCP servers the README uses (memory, filesystem, everything),
 *   listed through the official SDK client over stdio and mapped as the MCP source maps them
 *   (src/mcp/map-tool.ts: annotations carried), each with the tools that answer it;
 * - the relevance sets' own requests that are read requests (isReadRequest), with their tools;
 * - made from each catalog's destructive tools: "list the relations" for `delete_relations`,
 *   kept only where a non-destructive tool's name holds the same words (`get_relations`), so a
 *   safe answer exists. They have no judged answer: only the first hit's kind is counted.
 * Measures the ranking's read-safety internals over MCP-mapped tools on purpose: imports src/catalog/search-doc.ts, src/demo/, src/mcp/, src/search/ directly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { toSearchDoc } from "../../src/catalog/search-doc.js";
import { mapTool } from "../../src/mcp/map-tool.js";
import { defaultMcpOptions, type McpStdioServerConfig } from "../../src/mcp/options.js";
import { mapToolNames } from "../../src/mcp/tool-names.js";
import { splitIdentifier, stem } from "../../src/search/analysis/analyze.js";
import { isDestructive, isReadRequest } from "../../src/search/ranking/read-safety.js";
import { STOPWORDS } from "../../src/search/analysis/stopwords.js";
import type { SearchDoc } from "../../src/index.js";
import type { JudgedQuery } from "../lib/relevance.js";
import { builtinMcpServers } from "../../src/demo/builtin-servers.js";

/** A read request, with the tools that answer it where they are known. */
export interface ReadRequest {
  query: string;
  relevant?: readonly string[];
}

/** Requests over one catalog. */
export interface SafetyCatalog {
  /** "memory server", "LiveMCPBench (own requests)", … */
  name: string;
  docs: readonly SearchDoc[];
  requests: readonly ReadRequest[];
}

/** The written read requests per server, each with the tool names that answer it. */
const WRITTEN: Readonly<Record<string, ReadonlyArray<readonly [string, readonly string[]]>>> = {
  memory: [
    ["list everything in the knowledge graph", ["read_graph"]],
    ["show me the whole knowledge graph", ["read_graph"]],
    ["what do you know about Alice", ["open_nodes", "search_nodes", "read_graph"]],
    ["find the entities that mention Acme", ["search_nodes"]],
    ["look up the nodes named Alice and Bob", ["open_nodes", "search_nodes"]],
    ["which relations does Bob have", ["open_nodes", "search_nodes", "read_graph"]],
    ["show the observations stored about Carol", ["open_nodes", "search_nodes"]],
    ["search my memory for coffee preferences", ["search_nodes"]],
    ["get all entities and relations", ["read_graph"]],
    ["what people are in the graph", ["read_graph", "search_nodes"]],
  ],
  filesystem: [
    ["show the contents of notes.txt", ["read_text_file", "read_file"]],
    ["what files are in the folder", ["list_directory", "list_directory_with_sizes", "directory_tree"]],
    ["list the directory with file sizes", ["list_directory_with_sizes"]],
    ["find all markdown files under docs", ["search_files"]],
    ["read these three files at once", ["read_multiple_files"]],
    ["show me the folder structure as a tree", ["directory_tree"]],
    ["when was report.pdf last modified", ["get_file_info"]],
    ["which directories am I allowed to access", ["list_allowed_directories"]],
    ["display the image photo.png", ["read_media_file"]],
    ["get the first ten lines of the log file", ["read_text_file", "read_file"]],
    ["check the size of the backup archive", ["get_file_info", "list_directory_with_sizes"]],
  ],
  everything: [
    ["show all environment variables", ["get-env"]],
    ["get the sum of 3 and 4", ["get-sum"]],
    ["list some resource links", ["get-resource-links"]],
    ["what is the structured content for London", ["get-structured-content"]],
    ["show me a tiny image", ["get-tiny-image"]],
  ],
};

/**
 * The three servers' tools, listed over stdio through the SDK client and mapped as the MCP
 * source maps them, with the written requests; `skipped` names the packages not installed.
 */
export async function serverCatalogs(): Promise<{ catalogs: SafetyCatalog[]; skipped: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-read-safety-"));
  // The same servers, started the same way, as the main job's (npm start).
  const { servers, skipped } = builtinMcpServers(dir);
  const catalogs: SafetyCatalog[] = [];
  try {
    for (const server of servers) {
      const docs = await listedDocs(server);
      const byName = new Map(docs.map((d) => [d.name, d.id]));
      const requests = (WRITTEN[server.name] ?? []).map(([query, names]) => ({
        query,
        relevant: names.map((n) => byName.get(n) ?? `mcp:${server.name}:${n}`),
      }));
      catalogs.push({ name: `${server.name} server`, docs, requests });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { catalogs, skipped };
}

/** One server's tools/list over stdio, each tool mapped by src/mcp/map-tool.ts and made a search doc. */
async function listedDocs({ name: server, command, args = [], env = {} }: McpStdioServerConfig): Promise<SearchDoc[]> {
  const transport = new StdioClientTransport({ command, args: [...args], env: { ...inheritedEnv(), ...env }, stderr: "ignore" });
  const client = new Client({ name: "toolsearch-read-safety", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = mapToolNames(tools.map((t) => t.name));
    const { maxDescriptionChars, maxSchemaBytes } = defaultMcpOptions();
    const limits = { maxDescriptionChars, maxSchemaBytes };
    return tools.map((tool) => {
      const name = names.get(tool.name) ?? tool.name;
      const definition = mapTool(tool, name, limits, () => Promise.resolve(undefined));
      return toSearchDoc({ id: `mcp:${server}:${name}`, name, source: "mcp", toolset: server, definition });
    });
  } finally {
    await client.close();
  }
}

function inheritedEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** A relevance set's own requests that only ask to read. */
export function ownReadRequests(queries: readonly JudgedQuery[]): ReadRequest[] {
  return queries.filter((q) => isReadRequest(q.query)).map((q) => ({ query: q.query, relevant: q.relevant }));
}

/** What a request made from a destructive tool says, around its object ("relations"). */
const TEMPLATES = ["list the {}", "show me the {}", "find {}"];

/**
 * Read requests made from the catalog's destructive tools: the words of such a tool's name but
 * its verbs and its server's name ("relations" of `delete_relations`) in each template, where
 * a non-destructive tool's name holds every one of those words (stemmed), and the catalog has
 * at least one such tool. Each distinct object once.
 */
export function madeReadRequests(docs: readonly SearchDoc[]): ReadRequest[] {
  const safeNames = docs.filter((d) => !isDestructive(d)).map((d) => new Set(splitIdentifier(d.name).map(stem)));
  const objects = new Set<string>();
  for (const doc of docs) {
    if (!isDestructive(doc)) continue;
    const toolset = new Set(splitIdentifier(doc.toolset));
    const words = splitIdentifier(doc.name).filter((w) => w.length > 1 && !toolset.has(w) && !STOPWORDS.has(w) && !isDestructive({ name: w }));
    if (words.length === 0 || !/^[a-z]/.test(words[0]!)) continue;
    const stems = words.map(stem);
    if (safeNames.some((name) => stems.every((s) => name.has(s)))) objects.add(words.join(" "));
  }
  return [...objects].flatMap((object) => TEMPLATES.map((t) => ({ query: t.replace("{}", object) })));
}
