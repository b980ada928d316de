/**
 * How a run shows the catalog to its model. Apart from tool-search-config.ts (which re-exports
 * them), whose schemas load ajv: the web console's build reads the modes through the admin API's
 * wire types (src/admin/admin-wire-types.ts) and compiles without Node's types.
 */

/** The modes, listed here and nowhere else (schemas, the run context, the gateway take them from here). */
export const TOOL_SEARCH_MODES = ["direct", "code", "tools", "directory"] as const;
export type ToolSearchMode = (typeof TOOL_SEARCH_MODES)[number];
