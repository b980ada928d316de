/** The fault suite's servers: test/fixtures/mcp-servers/fault-server.mjs, a real SDK server over stdio, its fault chosen by environment. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import type { McpServerOptions, McpStdioServerConfig } from "../../src/mcp/index.js";
import { mcpServer, type McpServerSource, type McpSourceEvent } from "../../src/mcp/index.js";

export const FAULT_SERVER = path.join(import.meta.dirname, "..", "fixtures", "mcp-servers", "fault-server.mjs");

/** Longer than any test: a server that never gets there (setTimeout's own limit is ~24.8 days). */
export const NEVER_MS = 1_000_000_000;

export interface FaultEnv {
  FAULT_START_DELAY_MS?: number;
  FAULT_TOOLS?: number;
  FAULT_PAGE_SIZE?: number;
  FAULT_EXIT_AFTER_MS?: number;
  FAULT_SERIAL?: boolean;
  FAULT_GARBAGE?: boolean;
  FAULT_GRANDCHILD_DIR?: string;
  FAULT_GRANDCHILD_IGNORES_TERM?: boolean;
  FAULT_SLOW_MS?: number;
}

function faultConfig(name: string, fault: FaultEnv = {}): McpStdioServerConfig {
  const env = Object.fromEntries(
    Object.entries(fault)
      .filter(([, value]) => value !== undefined && value !== false)
      .map(([key, value]) => [key, value === true ? "1" : String(value)]),
  );
  return { name, command: process.execPath, args: [FAULT_SERVER], env };
}

/**
 * Sources and temporary folders closed after each test of the file that calls this (at its top
 * level). `source` also records every event the source sends.
 */
export function faultSources() {
  const opened: McpServerSource[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    source(name: string, fault: FaultEnv = {}, options?: McpServerOptions): { source: McpServerSource; events: McpSourceEvent[] } {
      const source = mcpServer(faultConfig(name, fault), options);
      const events: McpSourceEvent[] = [];
      source.onEvent((event) => events.push(event));
      opened.push(source);
      return { source, events };
    },
    tempDir(): string {
      const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-faults-"));
      dirs.push(dir);
      return dir;
    },
  };
}

export function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

export { childPids, isRunning } from "../support/proc.js";
export { nextChange, waitFor } from "../mcp/helpers.js";
