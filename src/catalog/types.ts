/** Tool definitions as callers register them, and the catalog entries the engine derives. */
import type { ValidateFunction } from "ajv";
import type { ToolAnnotations } from "./annotations.js";

export type { ToolAnnotations };

export type ToolSource = "core" | "plugin" | "mcp" | "client";

/** A JSON Schema object, as given by the tool's author (kept exactly as given). */
export type JsonSchema = Record<string, unknown>;

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  id: string;
  sessionId: string;
  agentId?: string;
  runId: string;
  /**
   * Whose call this is, for fair shares of what calls share (an MCP server's call slots): the
   * run's `RunContext.tenant` (a gateway token, an MCP face session's tenant), else its sessionId.
   */
  tenant: string;
  /** The caller is the owner (`RunContext.owner`), so owner-only tools are admitted. */
  owner: boolean;
  /** Aborted when the run ends, the call times out, or a code-mode body is killed. */
  signal: AbortSignal;
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  execute(args: Record<string, unknown>, ctx: ToolContext): unknown | Promise<unknown>;
  ownerOnly?: boolean;
  /** Directory mode shows this tool's schema up front whatever the prompt. */
  required?: boolean;
  /**
   * Behaviour hints (MCP tool annotations; carried from an MCP server's listing). Ranking keeps a
   * destructive tool (`destructiveHint: true`, else a destructive verb in its name) from coming
   * first for a request that only asks to read; `readOnlyHint: true` clears the name's verb.
   */
  annotations?: ToolAnnotations;
}

/** Which tool: what every view of one (catalog entry, search doc, hit, description, hook call) names it by. */
export interface ToolIdentity {
  /** Stable id: `core:<name>`, `plugin:<pluginId>:<name>`, `mcp:<server>:<tool>`, `client:<name>`. */
  id: string;
  /** The tool's name as its toolset registered it. */
  name: string;
  source: ToolSource;
  /** The tool's provider: "core", "client", a plugin id or an MCP server name. */
  toolset: string;
}

/** One tool in the catalog, with its derived id and its compiled validator. */
export interface CatalogEntry extends ToolIdentity {
  definition: ToolDefinition;
  /** From the definition; policy may add more owner-only tools by glob. */
  ownerOnly: boolean;
  /** The compiled input-schema validator (compiled on first use, then cached). */
  validator(): ValidateFunction;
  /** Why the tool cannot be called right now (its MCP server went away), if so. */
  unavailableReason?(): string | undefined;
}
