/**
 * The real MCP servers of the main job, spawned over stdio with this Node: the reference
 * "everything" server, the knowledge-graph memory server, and the filesystem server over a
 * temporary folder. They are devDependencies: in an installed package they are usually
 * absent, and the demo runs without them and says which it skipped.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { McpStdioServerConfig } from "../mcp/options.js";

const require = createRequire(import.meta.url);

/** The package's entry script, or undefined when it is not installed. */
function entry(pkg: string): string | undefined {
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
  } catch {
    return undefined;
  }
}

export interface BuiltinServers {
  servers: McpStdioServerConfig[];
  /** Packages that are not installed, so their servers were left out. */
  skipped: string[];
}

export function builtinMcpServers(workDir: string): BuiltinServers {
  const wanted: Array<{ pkg: string; config: (script: string) => McpStdioServerConfig }> = [
    { pkg: "@modelcontextprotocol/server-everything", config: (script) => ({ name: "everything", command: process.execPath, args: [script, "stdio"] }) },
    {
      pkg: "@modelcontextprotocol/server-memory",
      config: (script) => ({ name: "memory", command: process.execPath, args: [script], env: { MEMORY_FILE_PATH: path.join(workDir, "memory.jsonl") } }),
    },
    { pkg: "@modelcontextprotocol/server-filesystem", config: (script) => ({ name: "filesystem", command: process.execPath, args: [script, workDir] }) },
  ];
  const servers: McpStdioServerConfig[] = [];
  const skipped: string[] = [];
  for (const { pkg, config } of wanted) {
    const script = entry(pkg);
    if (script === undefined) skipped.push(pkg);
    else servers.push(config(script));
  }
  return { servers, skipped };
}
