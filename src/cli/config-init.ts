/**
 * `toolsearch config init`: a commented starter config in an empty folder — the scripted
 * provider, a real MCP server from the registry (the knowledge-graph memory server) and a small
 * sample plugin — so that `toolsearch serve`, docs/gateway.md's curl examples and the console have a
 * catalog to show from the first minute.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import JSON5 from "json5";
import { validateConfig } from "../config/config-file.js";
import { ConfigInvalidError } from "../errors.js";
import type { CommandIo } from "./usage.js";

/** The memory server's version the tests run against (package.json devDependencies): what `npx` fetches when it is not installed. */
const MEMORY_SERVER = "@modelcontextprotocol/server-memory";
const MEMORY_SERVER_VERSION = "2026.8.31";

/** How the memory server is started: with node when its package is installed here (or beside toolsearch), else through npx. */
function memoryServerCommand(dir: string): { command: string; args: string[]; how: string } {
  const lookIn = [path.join(dir, "package.json"), import.meta.url];
  for (const from of lookIn) {
    try {
      const manifest = createRequire(from).resolve(`${MEMORY_SERVER}/package.json`);
      const entry = path.join(path.dirname(manifest), "dist", "index.js");
      if (existsSync(entry)) return { command: "node", args: [entry], how: `node (${MEMORY_SERVER} is installed)` };
    } catch {
      // not installed there: the next place, then npx
    }
  }
  return { command: "npx", args: ["-y", `${MEMORY_SERVER}@${MEMORY_SERVER_VERSION}`], how: `npx (fetched from the npm registry on first start)` };
}

function configText(dir: string): { text: string; how: string } {
  const memory = memoryServerCommand(dir);
  const text = `// toolsearch.config.json5, written by \`toolsearch config init\`. Every key, its default and range:
// docs/configuration.md of toolsearch. (\`toolsearch config set\` rewrites this file without its comments.)
{
  tools: {
    // What the model is shown: "code" (one tool whose body runs in a sandboxed Node child and
    // calls openclaw.tools.search / describe / call), "tools" (tool_search, tool_describe,
    // tool_call), "directory" (those three and a directory of tool names), or "direct" (every schema).
    toolSearch: { mode: "code", searchDefaultLimit: 8 },
  },

  // The model: any OpenAI-compatible endpoint (api: "responses" or "anthropic" for the others).
  // This is the scripted provider, \`toolsearch mock-provider --port 8787\`: no key, no network.
  provider: { baseURL: "http://127.0.0.1:8787/v1", model: "scripted" },

  // \`toolsearch serve\` (POST /v1/runs, the console at /console, the admin API at /admin/v1/).
  // Without gateway.auth it binds loopback only and serves only local, same-origin callers.
  gateway: {
    host: "127.0.0.1",
    port: 8788,
    // auth: { tokens: [{ tokenEnv: "TOOLSEARCH_TOKEN_ADMIN", owner: true }, { tokenEnv: "TOOLSEARCH_TOKEN_SUPPORT", agentId: "support" }] },
  },

  // Folders of plugin modules, relative to this file: each exports default { id, tools: [...] }.
  plugins: ["./plugins"],

  // MCP servers, in the keyed form Claude Desktop and Cursor use; \${VAR} reads the environment.
  // The knowledge-graph memory server, started with ${memory.how}.
  mcpServers: {
    memory: {
      command: ${JSON.stringify(memory.command)},
      args: ${JSON.stringify(memory.args)},
      env: { MEMORY_FILE_PATH: ${JSON.stringify(path.join(dir, "memory.jsonl"))} },
    },
  },

  // Who may see what: globs over tool ids (core:*, plugin:<id>:*, mcp:<server>:*), per agent, profile or channel.
  // policy: { deny: ["mcp:memory:delete_*"], agents: { support: { allow: ["plugin:sample:*"] } } },

  // One JSON line per run, search, describe and call (query text only with recordQueries: true).
  // sessionLog: "logs/session.jsonl",
}
`;
  return { text, how: memory.how };
}

const SAMPLE_PLUGIN = `// A sample plugin, loaded by \`plugins: ["./plugins"]\` in toolsearch.config.json5. Each tool is
// { name, description, inputSchema (JSON Schema), execute(args, context) }; its id is plugin:sample:<name>.
export default {
  id: "sample",
  tools: [
    {
      name: "get_weather",
      description: "Weather forecast for a city: sky and temperature for today and the next days.",
      inputSchema: {
        type: "object",
        properties: { city: { type: "string", description: "City name, e.g. Paris" }, days: { type: "integer", minimum: 1, maximum: 7 } },
        required: ["city"],
      },
      execute: async ({ city, days = 1 }) => ({ city, days: Array.from({ length: days }, (_, i) => ({ day: i, sky: "clear", celsius: 21 - i })) }),
    },
    {
      name: "convert_currency",
      description: "Convert an amount of money from one currency to another at today's rate.",
      inputSchema: {
        type: "object",
        properties: { amount: { type: "number" }, from: { type: "string", description: "ISO code, e.g. EUR" }, to: { type: "string" } },
        required: ["amount", "from", "to"],
      },
      execute: async ({ amount, from, to }) => ({ amount, from, to, converted: Math.round(amount * 1.08 * 100) / 100, rate: 1.08 }),
    },
    {
      name: "send_email",
      description: "Send an email to a recipient with a subject and a body.",
      inputSchema: {
        type: "object",
        properties: { to: { type: "string", description: "Email address" }, subject: { type: "string" }, body: { type: "string" } },
        required: ["to", "subject", "body"],
      },
      execute: async ({ to, subject }) => ({ status: "queued", to, subject }),
    },
  ],
};
`;

/** Writes the starter config and the sample plugin beside it; refuses to overwrite either unless `force`. */
export function configInit(file: string, force: boolean, io: CommandIo): number {
  const dir = path.dirname(file);
  const plugin = path.join(dir, "plugins", "sample.mjs");
  const existing = [file, plugin].filter((f) => existsSync(f));
  if (existing.length > 0 && !force) {
    throw new ConfigInvalidError(`${existing.join(" and ")} already exist${existing.length === 1 ? "s" : ""}; pass --force to overwrite`);
  }
  const { text, how } = configText(dir);
  // What is written is what `serve` will read: checked by the same validation first.
  validateConfig(JSON5.parse(text), file);
  mkdirSync(path.dirname(plugin), { recursive: true });
  writeFileSync(file, text, { mode: 0o600 });
  writeFileSync(plugin, SAMPLE_PLUGIN);
  io.err(`wrote ${file}`);
  io.err(`wrote ${plugin} (3 tools: get_weather, convert_currency, send_email)`);
  io.err(`the MCP server "memory" (9 tools) starts with ${how}`);
  io.err("next: toolsearch tools            # the catalog, source by source");
  io.err('      toolsearch search "what is the weather in Paris" --explain');
  io.err("      toolsearch mock-provider --port 8787 & toolsearch serve   # then open http://127.0.0.1:8788/console");
  return 0;
}
