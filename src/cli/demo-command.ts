/** `toolsearch demo`: one request over a generated catalog in every mode, compared. */
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { formatReports, runDemo } from "../demo/demo.js";
import { UsageError, type CommandIo } from "./usage.js";

export const DEMO_USAGE = `Usage: toolsearch demo [--tools N]

  Runs two requests (one for a plugin tool, one for a real MCP server's tool) over a catalog
  of N generated plugin tools (default 1000) plus the tools of the MCP servers installed
  beside it, in direct, tools, directory and code mode, and prints tools declared, request
  bytes, round trips, time, searches/describes/calls and the final tool for each.`;

export async function demoCommand(options: { tools?: string }, io: CommandIo): Promise<number> {
  const tools = Number(options.tools ?? "1000");
  if (!Number.isInteger(tools) || tools < 1 || tools > 200_000) {
    throw new UsageError(`--tools must be an integer from 1 to 200000; got "${options.tools}"`, DEMO_USAGE);
  }
  const modes: ToolSearchMode[] = ["direct", "tools", "directory", "code"];
  const reports = await runDemo({ tools, modes, log: io.err });
  io.out(formatReports(reports));
  return 0;
}
