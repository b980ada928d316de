/** Tenants and their shares, and the sandbox's layers and load. */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { ago, count } from "../format.js";
import { usePoll } from "../poll.js";
import type { SandboxAnswer, TenantsAnswer } from "../../../src/admin/admin-wire-types.js";
import { Badge, Failure, Loading, Pager } from "../ui.js";

export function TenantsPage() {
  const [offset, setOffset] = useState(0);
  const tenants = usePoll(() => api<TenantsAnswer>(`/tenants?offset=${offset}&limit=50`), 5_000, [offset]);
  const sandbox = usePoll(() => api<SandboxAnswer>("/sandbox"), 5_000);
  if (tenants.error) return html`<${Failure} error=${tenants.error} />`;
  if (!tenants.data) return html`<${Loading} />`;
  const { shares } = tenants.data;
  const report = sandbox.data !== undefined && "report" in sandbox.data ? sandbox.data.report : undefined;
  return html`<section>
    <h2>Tenants and shares</h2>
    <p class="lead">
      ${shares.pool ? `Code pool: ${shares.pool.running} of ${shares.pool.maxConcurrent} slots running, ${shares.pool.queued} of ${shares.pool.maxQueue} queued, ${shares.pool.ready} children ready.` : "Code pool: not started."}
      ${shares.sessions ? ` MCP sessions: ${shares.sessions.open} of ${shares.sessions.max} (${shares.sessions.perTenant} per tenant).` : ""}
    </p>
    <table class="tenants">
      <thead>
        <tr>
          <th>tenant</th>
          <th class="num">runs</th>
          <th class="num">running</th>
          <th class="num">calls ok</th>
          <th class="num">failed</th>
          <th class="num">code bodies</th>
          <th class="num">bodies running / queued</th>
          <th class="num">sessions</th>
          <th>last seen</th>
        </tr>
      </thead>
      <tbody>
        ${tenants.data.tenants.map(
          (t) =>
            html`<tr key=${t.tenant}>
              <td class="mono">${t.tenant}</td>
              <td class="num">${count(t.runs)}</td>
              <td class="num">${t.activeRuns}</td>
              <td class="num">${count(t.calls.ok)}</td>
              <td class="num">${count(t.calls.failed)}</td>
              <td class="num">${count(t.codeRuns)}</td>
              <td class="num">${t.codeBodies.running} / ${t.codeBodies.queued}</td>
              <td class="num">${t.sessions}</td>
              <td>${ago(t.lastSeen)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${tenants.data.total === 0 ? html`<p class="hint">No tenant yet: runs, sessions and code bodies appear here as they come.</p>` : null}
    <${Pager} offset=${offset} limit=${50} total=${tenants.data.total} go=${setOffset} />
    <h3>Sandbox</h3>
    ${sandbox.error ? html`<${Failure} error=${sandbox.error} />` : null}
    ${
      report
        ? html`<p>${report.available ? `Node ${report.nodeVersion}` : `Unavailable: ${report.reason ?? ""}`}</p>
            <ul class="layers">
              ${Object.entries(report.layers).map(([layer, on]) => html`<li key=${layer}><${Badge} ok=${on} text=${on ? "on" : "off"} /> ${layer}</li>`)}
            </ul>`
        : html`<p class="hint">Not started: no run has needed code mode yet.</p>`
    }
  </section>`;
}
