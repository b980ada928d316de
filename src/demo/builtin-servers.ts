/**
 * The real MCP servers of the main job, installed from the registry as dependencies and
 * spawned over stdio with this Node: the reference "everything" server, the knowledge-graph
 * memory server, and the filesystem server over a temporary folder.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { McpStdioServerConfig } from "../mcp/options.js";

const require = createRequire(import.meta.url);

function entry(pkg: string): string {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
}

export function builtinMcpServers(workDir: string): McpStdioServerConfig[] {
  return [
    { name: "everything", command: process.execPath, args: [entry("@modelcontextprotocol/server-everything"), "stdio"] },
    { name: "memory", command: process.execPath, args: [entry("@modelcontextprotocol/server-memory")], env: { MEMORY_FILE_PATH: path.join(workDir, "memory.jsonl") } },
    { name: "filesystem", command: process.execPath, args: [entry("@modelcontextprotocol/server-filesystem"), workDir] },
  ];
}
