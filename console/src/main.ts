/**
 * The toolsearch web console: one page, routed by the URL's hash, over the admin API. No data is
 * in the page itself; every figure comes from /admin/v1 (with the owner token, when the server
 * has gateway.auth).
 */
import { html, render } from "htm/preact";
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { api } from "./api.js";
import { usePoll } from "./poll.js";
import type { AdminIndex } from "../../src/admin/admin-wire-types.js";
import { CatalogPage } from "./pages/catalog.js";
import { LearningPage } from "./pages/learning.js";
import { SearchPage } from "./pages/search.js";
import { ServersPage } from "./pages/servers.js";
import { TelemetryPage } from "./pages/telemetry.js";
import { TenantsPage } from "./pages/tenants.js";

const PAGES: Array<{ path: string; title: string; view: ComponentType }> = [
  { path: "catalog", title: "Catalog", view: CatalogPage },
  { path: "search", title: "Search", view: SearchPage },
  { path: "telemetry", title: "Telemetry", view: TelemetryPage },
  { path: "tenants", title: "Tenants", view: TenantsPage },
  { path: "servers", title: "MCP servers", view: ServersPage },
  { path: "learning", title: "Learning", view: LearningPage },
];

function routeOf(hash: string) {
  const path = hash.replace(/^#\/?/, "");
  return PAGES.find((p) => p.path === path) ?? PAGES[0]!;
}

function App() {
  const [page, setPage] = useState(routeOf(location.hash));
  const index = usePoll(() => api<AdminIndex>(""), undefined);
  useEffect(() => {
    const follow = () => setPage(routeOf(location.hash));
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, []);
  useEffect(() => {
    document.title = `${page.title} · toolsearch console`;
  }, [page]);
  const View = page.view;
  return html`<header>
      <h1>toolsearch</h1>
      <nav>
        ${PAGES.map((p) => html`<a key=${p.path} href=${`#/${p.path}`} class=${p === page ? "active" : ""} aria-current=${p === page ? "page" : undefined}>${p.title}</a>`)}
      </nav>
      <span class="server">${index.data ? `${index.data.face} · v${index.data.version} · mode ${index.data.mode}` : ""}</span>
    </header>
    <main><${View} key=${page.path} /></main>`;
}

render(html`<${App} />`, document.getElementById("app")!);
