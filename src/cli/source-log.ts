/**
 * What `serve` and `mcp` print on stderr about each MCP server, as it happens: at start one line
 * per server as it connects ("memory: ready in 1.2 s, 9 tools"; "slowthing: still connecting
 * after 10 s, retrying in the background"), then one line whenever a background try starts,
 * fails or succeeds and whenever a circuit breaker opens or closes. The tries back off
 * (mcp/backoff.ts), so a server that stays down prints less and less often. A reason may end
 * with the server's stderr: it is the operator's, printed here and never shown to a client.
 */
import type { McpServerSource, McpSourceEvent } from "../mcp/index.js";
import { escapeControl } from "../text/prompt-text.js";
import { reasonOf } from "./startup-summary.js";

/** The line for one event of `source`, or undefined for an event that needs none (the first start beginning). */
function sourceEventLine(command: string, source: McpServerSource, event: McpSourceEvent): string | undefined {
  const name = source.toolset;
  const label = `MCP server "${name}"`;
  const line = (text: string) => `toolsearch ${command}: ${escapeControl(text)}`;
  switch (event.kind) {
    case "connecting":
      return event.first ? undefined : line(`${label}: trying again in the background (try ${event.attempt})`);
    case "slow":
      return line(`${name}: still connecting after ${seconds(event.afterMs)}, retrying in the background`);
    case "ready":
      return event.first
        ? line(`${name}: ready in ${seconds(event.ms)}, ${tools(event.tools)}`)
        : line(`${label} is back: ${tools(event.tools)} (connected in ${seconds(event.ms)}, try ${event.attempt})`);
    case "failed":
    case "gone":
      return line(`warning: ${label} is down: ${reasonOf(event.reason)}; trying again in ${seconds(event.retryInMs)}`);
    case "breaker-open":
      return line(`warning: ${reasonOf(event.reason)}`);
    case "breaker-closed":
      return line(`${label} answers again: its calls go through`);
  }
}

/** Writes each event's line with `write`; for EngineExtras.onSourceEvent. */
export function logSourceEvents(command: string, write: (line: string) => void): (source: McpServerSource, event: McpSourceEvent) => void {
  return (source, event) => {
    const text = sourceEventLine(command, source, event);
    if (text !== undefined) write(text);
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function tools(n: number): string {
  return `${n} tool${n === 1 ? "" : "s"}`;
}
