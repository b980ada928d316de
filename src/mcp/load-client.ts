/** Loads client.ts (the MCP SDK client and its error readers) at a source's first connect, not at import. */
export type McpClientParts = typeof import("./client.js");

let loading: Promise<McpClientParts> | undefined;

/** The parts, imported once per process; a failed import is not kept, so a later connect tries again. */
export function loadMcpClient(): Promise<McpClientParts> {
  loading ??= import("./client.js").catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
