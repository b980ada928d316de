/**
 * One connection to an MCP server: an SDK client on one transport, from connect to close. A
 * reconnect is a new McpConnection; the source (mcp-server-source.ts) owns the lifecycle.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedMcpConfig, ResolvedMcpOptions } from "./options.js";
import { lenientOutputValidator } from "./output-validator.js";
import { createTransport, type TransportHandle } from "./transports.js";
import { ToolUnavailableError } from "../errors.js";

const CLIENT_INFO = { name: "toolsearch", version: "0.1.0" };

export interface ConnectionEvents {
  /** The transport closed without this side asking (stdio: the child exited). */
  closed(connection: McpConnection): void;
  /** The transport reported an error; it may be transient (the source checks liveness). */
  error(connection: McpConnection, error: Error): void;
  /** The server sent `notifications/tools/list_changed`. */
  toolsChanged(connection: McpConnection): void;
}

export interface ToolListing {
  tools: Tool[];
  /** More tools were offered than `maxTools`; the rest were left out. */
  truncated: boolean;
}

export class McpConnection {
  private closing = false;
  private closed: Promise<void> = Promise.resolve();
  private readonly client: Client;

  private constructor(
    private readonly handle: TransportHandle,
    private readonly options: ResolvedMcpOptions,
    events: ConnectionEvents,
    server: string,
  ) {
    this.client = new Client(CLIENT_INFO, {
      capabilities: {},
      jsonSchemaValidator: lenientOutputValidator(options.maxSchemaBytes, server),
    });
    this.client.onclose = () => {
      if (!this.closing) events.closed(this);
    };
    this.client.onerror = (error) => {
      if (!this.closing) events.error(this, error);
    };
    // Registered directly, not through the client's `listChanged` option: that option only
    // applies when the server advertises the capability, and re-lists a single page.
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (!this.closing) events.toolsChanged(this);
    });
  }

  /** A connection not yet connected; `connect` it, and `close` it whatever happens. */
  static create(config: ResolvedMcpConfig, options: ResolvedMcpOptions, events: ConnectionEvents): McpConnection {
    return new McpConnection(createTransport(config, options), options, events, config.name);
  }

  /** Spawn or first request, then initialize within `timeout` ms; `signal` aborts it (and `close` ends it). */
  async connect(signal: AbortSignal, timeout: number): Promise<void> {
    await this.client.connect(this.handle.transport, { signal, timeout });
  }

  get kind(): TransportHandle["kind"] {
    return this.handle.kind;
  }

  pid(): number | undefined {
    return this.handle.pid();
  }

  stderrTail(): string {
    return this.handle.stderrTail();
  }

  /** Every page of `tools/list`, following `nextCursor`; a cursor seen twice is a server bug and fails. */
  async listAllTools(signal: AbortSignal | undefined, timeout: number): Promise<ToolListing> {
    const tools: Tool[] = [];
    const seenCursors = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? undefined : { cursor }, { ...(signal ? { signal } : {}), timeout });
      for (const tool of page.tools) {
        if (tools.length >= this.options.maxTools) return { tools, truncated: true };
        tools.push(tool);
      }
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        // TOOL_UNAVAILABLE: a server that cannot list its tools is not usable (connect wraps it so too).
        if (seenCursors.has(cursor))
          throw new ToolUnavailableError(undefined, `tools/list pagination loops (cursor ${JSON.stringify(cursor.slice(0, 40))} returned twice)`);
        seenCursors.add(cursor);
      }
    } while (cursor !== undefined);
    return { tools, truncated: false };
  }

  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, timeout: number): Promise<CallToolResult> {
    return this.client.callTool({ name, arguments: args }, undefined, { signal, timeout }) as Promise<CallToolResult>;
  }

  async ping(timeout: number): Promise<void> {
    await this.client.ping({ timeout });
  }

  /** Closes the client and the transport (stdio: the child is gone when this resolves). Idempotent. */
  async close(): Promise<void> {
    if (this.closing) return this.closed;
    this.closing = true;
    this.closed = (async () => {
      await this.handle.shutdown();
      // Rejects whatever is still in flight (ConnectionClosed) and clears the SDK's timers.
      await this.client.close().catch(() => {});
    })();
    return this.closed;
  }
}
