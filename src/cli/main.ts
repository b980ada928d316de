#!/usr/bin/env node
/** The `toolsearch` command. `--help` works on every command; usage errors exit 2. */
import { parseArgs } from "node:util";
import { errorMessage, ToolSearchError } from "../errors.js";
import { closestWord } from "../validation/closest-word.js";
import { packageVersion } from "../version.js";
import { UsageError, type CommandIo } from "./usage.js";
import type { SearchCommandOptions } from "./search-command.js";
import type { ToolsOptions } from "./tools-command.js";

/** The identity options of tools and search (catalog-engine.ts IdentityOptions), here so that main loads no command it does not run. */
const IDENTITY_OPTIONS = { agent: { type: "string" }, profile: { type: "string" }, channel: { type: "string" }, owner: { type: "boolean" } } as const;

const USAGE = `Usage: toolsearch <command> [options]

Commands:
  demo           Compare every mode on two requests over a large catalog (npm start).
  serve          Start the HTTP gateway (POST /v1/runs).
  mcp            Serve the catalog to an MCP client (stdio, or Streamable HTTP with --http).
  mock-provider  Start the scripted provider (OpenAI Chat, Responses, Anthropic).
  tools          List the catalog by source: each source's state and tools (as one caller, with --agent...).
  search         Search the catalog as a run would; --explain says why each hit is where it is.
  config         Write a starter config (config init), or read and change the JSON5 config.

Run "toolsearch <command> --help" for a command's options; "toolsearch --version" prints the version.`;

const io: CommandIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

type Values = Record<string, string | boolean | undefined>;
interface Command {
  usage: string;
  run(values: Values, positionals: string[]): Promise<number> | number;
}

/** Commands load on demand, so `config get` does not pay for the engine and its WASM. */
const COMMANDS: Record<string, { options: Record<string, { type: "string" | "boolean" }>; load(): Promise<Command> }> = {
  demo: {
    options: { tools: { type: "string" } },
    load: async () => {
      const { DEMO_USAGE, demoCommand } = await import("./demo-command.js");
      return { usage: DEMO_USAGE, run: (v) => demoCommand(typeof v.tools === "string" ? { tools: v.tools } : {}, io) };
    },
  },
  serve: {
    options: { config: { type: "string" }, port: { type: "string" }, host: { type: "string" }, verbose: { type: "boolean" }, workers: { type: "string" } },
    load: async () => {
      const { SERVE_USAGE, serveCommand } = await import("./server-commands.js");
      return { usage: SERVE_USAGE, run: (v) => serveCommand(v as { config?: string; port?: string; host?: string; verbose?: boolean; workers?: string }, io) };
    },
  },
  mcp: {
    options: { config: { type: "string" }, http: { type: "string" }, host: { type: "string" }, verbose: { type: "boolean" }, workers: { type: "string" } },
    load: async () => {
      const { MCP_USAGE, mcpCommand } = await import("./mcp-command.js");
      return { usage: MCP_USAGE, run: (v) => mcpCommand(v as { config?: string; http?: string; host?: string; verbose?: boolean; workers?: string }, io) };
    },
  },
  "mock-provider": {
    options: { port: { type: "string" }, host: { type: "string" } },
    load: async () => {
      const { MOCK_PROVIDER_USAGE, mockProviderCommand } = await import("./server-commands.js");
      return { usage: MOCK_PROVIDER_USAGE, run: (v) => mockProviderCommand(v as { port?: string; host?: string }, io) };
    },
  },
  tools: {
    options: { config: { type: "string" }, source: { type: "string" }, json: { type: "boolean" }, ...IDENTITY_OPTIONS },
    load: async () => {
      const { TOOLS_USAGE, toolsCommand } = await import("./tools-command.js");
      return { usage: TOOLS_USAGE, run: (v) => toolsCommand(v as ToolsOptions, io) };
    },
  },
  search: {
    options: { config: { type: "string" }, explain: { type: "boolean" }, limit: { type: "string" }, json: { type: "boolean" }, ...IDENTITY_OPTIONS },
    load: async () => {
      const { SEARCH_USAGE, searchCommand } = await import("./search-command.js");
      return { usage: SEARCH_USAGE, run: (v, p) => searchCommand(v as SearchCommandOptions, p, io) };
    },
  },
  config: {
    options: { config: { type: "string" }, force: { type: "boolean" } },
    load: async () => {
      const { CONFIG_USAGE, configCommand } = await import("./config-command.js");
      return { usage: CONFIG_USAGE, run: (v, p) => configCommand(p, v.config as string | undefined, io, v.force === true) };
    },
  },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? io.err : io.out)(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.out(packageVersion());
    return 0;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    const meant = closestWord(name, Object.keys(COMMANDS));
    io.err(`toolsearch: unknown command "${name}"${meant ? `; did you mean "${meant}"?` : ""}\n\n${USAGE}`);
    return 2;
  }
  const command = await entry.load();
  try {
    refuseUnknownOptions(rest, Object.keys(entry.options), command.usage);
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: { ...entry.options, help: { type: "boolean", short: "h" } },
    });
    if (values.help) {
      io.out(command.usage);
      return 0;
    }
    return await command.run(values, positionals);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(`toolsearch ${name}: ${(error as Error).message}\n\n${command.usage}`);
      return 2;
    }
    // A config the command refuses is the operator's to fix, like a bad argument: one line, exit 2.
    if (error instanceof ToolSearchError && error.code === "CONFIG_INVALID") {
      io.err(`toolsearch ${name}: ${oneLine(error.message)}`);
      return 2;
    }
    // Anything else: one line too; the stack only when asked for (TOOLSEARCH_DEBUG=1).
    io.err(`toolsearch ${name}: ${process.env.TOOLSEARCH_DEBUG ? ((error as Error).stack ?? String(error)) : oneLine(errorMessage(error))}`);
    return 1;
  }
}

/**
 * Node's parseArgs answers `--conifg x` with advice about positional arguments; a user who
 * mistyped an option should read its name and the one meant. Checked before parseArgs, which
 * still refuses everything else it refuses.
 */
function refuseUnknownOptions(args: readonly string[], known: readonly string[], usage: string): void {
  const names = [...known, "help"];
  for (const arg of args) {
    if (arg === "--") return;
    if (!arg.startsWith("--")) continue;
    const option = arg.slice(2).split("=", 1)[0] ?? "";
    if (names.includes(option)) continue;
    const meant = closestWord(option, names);
    throw new UsageError(`unknown option --${option.slice(0, 60)}${meant ? `; did you mean --${meant}?` : ""}`, usage);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
