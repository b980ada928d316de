/** A config folder for `toolsearch mcp` tests: a plugin (one tool denied), server-memory behind a wrapper that a flag file keeps down. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);

export interface FaceFixture {
  dir: string;
  configFile: string;
  /** Written before killing the downstream server: its wrapper then refuses to start again. */
  downFlag: string;
}

const PLUGIN = `import { writeFileSync } from "node:fs";
export default { id: "acme", tools: [
  { name: "echo_text", description: "Echo the given text back unchanged.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, execute: (args) => ({ echoed: args.text }) },
  { name: "secret_admin", description: "Delete every user account. Admin only.", inputSchema: { type: "object", properties: {} }, execute: () => "deleted" },
  { name: "wait_for_cancel", description: "Waits until the call is cancelled, then writes a marker file.", inputSchema: { type: "object", properties: { marker: { type: "string" } }, required: ["marker"] },
    execute: (args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => { writeFileSync(args.marker, "cancelled"); resolve("cancelled"); })) },
  { name: "big_blob", description: "Return a very large blob of text.", inputSchema: { type: "object", properties: {} }, execute: () => "x".repeat(3 * 1024 * 1024) },
] };
`;

/** The wrapper: refuses to start while the flag file exists, else runs server-memory in-process. */
const WRAPPER = `import { existsSync } from "node:fs";
if (existsSync(process.env.DOWN_FLAG)) {
  console.error("memory wrapper: refusing to start, the down flag is set");
  process.exit(1);
}
await import(process.env.SERVER_ENTRY);
`;

export function faceFixture(config: Record<string, unknown> = {}): FaceFixture {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-mcpface-"));
  mkdirSync(path.join(dir, "plugins"));
  writeFileSync(path.join(dir, "plugins", "acme.mjs"), PLUGIN);
  writeFileSync(path.join(dir, "memory-wrapper.mjs"), WRAPPER);
  const downFlag = path.join(dir, "down.flag");
  const memoryEntry = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");
  const full = {
    tools: { toolSearch: { mode: "tools", maxResultBytes: 65_536 } },
    plugins: ["./plugins"],
    // The keyed form, a relative script path (resolved in the config's folder) and ${VAR}s.
    mcpServers: {
      memory: {
        command: process.execPath,
        args: ["./memory-wrapper.mjs"],
        env: { DOWN_FLAG: downFlag, SERVER_ENTRY: pathToFileURL(memoryEntry).href, MEMORY_FILE_PATH: "${TS_TEST_MEMORY_FILE}" },
      },
    },
    policy: { deny: ["plugin:acme:secret_admin"], agents: { desk: { deny: ["mcp:memory:delete_*"] } } },
    mcp: { agentId: "desk" },
    ...config,
  };
  const configFile = path.join(dir, "toolsearch.config.json5");
  writeFileSync(configFile, JSON.stringify(full, null, 2));
  return { dir, configFile, downFlag };
}

export function memoryFileEnv(dir: string): Record<string, string> {
  return { TS_TEST_MEMORY_FILE: path.join(dir, "memory.jsonl") };
}
