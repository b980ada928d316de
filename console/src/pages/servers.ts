/** The configured MCP servers: state, tools, last error, and the calls runs made to them. */
import { html } from "htm/preact";
import { api } from "../api.js";
import { count, ms } from "../format.js";
import { usePoll } from "../poll.js";
import type { ServersAnswer } from "../../../src/admin/admin-wire-types.js";
import { Badge, Failure, Loading } from "../ui.js";

export function ServersPage() {
  const servers = usePoll(() => api<ServersAnswer>("/mcp-servers?limit=500"), 5_000);
  if (servers.error) return html`<${Failure} error=${servers.error} />`;
  if (!servers.data) return html`<${Loading} />`;
  return html`<section>
    <h2>MCP servers</h2>
    ${servers.data.servers.length === 0 ? html`<p class="hint">The config names no MCP server (mcpServers).</p>` : null}
    <table class="servers">
      <thead>
        <tr>
          <th>server</th>
          <th>state</th>
          <th class="num">tools</th>
          <th class="num">calls ok</th>
          <th class="num">failed</th>
          <th class="num">mean</th>
          <th class="num">max</th>
          <th>last error</th>
        </tr>
      </thead>
      <tbody>
        ${servers.data.servers.map(
          (s) =>
            html`<tr key=${s.name}>
              <td class="mono">${s.name} <small>${s.transport}${s.pid !== undefined ? `, pid ${s.pid}` : ""}</small></td>
              <td><${Badge} ok=${s.up} text=${s.state} /></td>
              <td class="num">${count(s.tools)}${s.truncated ? " (cut)" : ""}</td>
              <td class="num">${count(s.calls.ok)}</td>
              <td class="num">${count(s.calls.failed)}</td>
              <td class="num">${s.calls.ok + s.calls.failed > 0 ? ms(s.calls.meanMs) : "–"}</td>
              <td class="num">${s.calls.ok + s.calls.failed > 0 ? ms(s.calls.maxMs) : "–"}</td>
              <td class="error-text">
                ${[s.lastError, s.lastListError, s.calls.lastError ? `last failed call: ${s.calls.lastError.code}` : undefined].filter(Boolean).join("; ") || "–"}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
