/** The catalog by source, each source's health; a source's tools, paged. */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { count } from "../format.js";
import { usePoll } from "../poll.js";
import type { CatalogAnswer, SourceRow, ToolsAnswer } from "../../../src/admin/admin-wire-types.js";
import { Badge, Failure, Loading, Pager } from "../ui.js";

export function CatalogPage() {
  const catalog = usePoll(() => api<CatalogAnswer>("/catalog?limit=500"), 5_000);
  const [open, setOpen] = useState<SourceRow | undefined>(undefined);
  if (catalog.error) return html`<${Failure} error=${catalog.error} />`;
  if (!catalog.data) return html`<${Loading} />`;
  const { size, mode, sources, rebuildError } = catalog.data;
  return html`<section>
    <h2>Catalog</h2>
    <p class="lead">${count(size)} tools in ${sources.length} sources; mode <strong>${mode}</strong>.</p>
    ${rebuildError ? html`<p class="failure">Last catalog rebuild refused (${rebuildError.code}): ${rebuildError.message}</p>` : null}
    <table class="sources">
      <thead>
        <tr>
          <th>source</th>
          <th>state</th>
          <th class="num">tools</th>
          <th>why down</th>
        </tr>
      </thead>
      <tbody>
        ${sources.map(
          (s) =>
            html`<tr key=${`${s.source}:${s.toolset}`} class=${open === s ? "selected" : ""}>
              <td><button class="link" onClick=${() => setOpen(s)}>${s.source}:${s.toolset}</button></td>
              <td><${Badge} ok=${s.ok} text=${s.ok ? (s.mcp?.state ?? "ok") : (s.mcp?.state ?? "down")} /></td>
              <td class="num">${count(s.tools)}</td>
              <td class="error-text">${s.error ?? ""}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${open ? html`<${SourceTools} key=${`${open.source}:${open.toolset}`} source=${open} />` : html`<p class="hint">Pick a source to list its tools.</p>`}
  </section>`;
}

function SourceTools({ source }: { source: SourceRow }) {
  const [offset, setOffset] = useState(0);
  const tools = usePoll(
    () => api<ToolsAnswer>(`/tools?source=${source.source}&toolset=${encodeURIComponent(source.toolset)}&offset=${offset}&limit=50`),
    undefined,
    [offset],
  );
  if (tools.error) return html`<${Failure} error=${tools.error} />`;
  if (!tools.data) return html`<${Loading} />`;
  return html`<div class="tools">
    <h3>${source.source}:${source.toolset}: ${count(tools.data.total)} tools</h3>
    <table>
      <thead>
        <tr>
          <th>tool</th>
          <th>description</th>
          <th>parameters</th>
        </tr>
      </thead>
      <tbody>
        ${tools.data.tools.map(
          (t) =>
            html`<tr key=${t.id}>
              <td class="mono">${t.name}${t.ownerOnly ? html` <span class="badge owner">owner only</span>` : null}</td>
              <td>${t.summary}</td>
              <td class="mono">${t.signature ?? ""}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <${Pager} offset=${offset} limit=${50} total=${tools.data.total} go=${setOffset} />
  </div>`;
}
