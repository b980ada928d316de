/**
 * OpenTelemetry metrics of the faces, scraped from a real gateway and a real MCP face with the
 * memory MCP server, read by a strict Prometheus text-format parser (prom2javascript: it throws
 * on a malformed line or a histogram whose +Inf bucket is not its count; parse-prometheus-text-format
 * drops the labels of labelled histograms): semantic-convention names for HTTP and MCP, runs, searches, calls, code
 * bodies, bytes up front against direct, pool, catalog, MCP servers up, learning; and OTLP,
 * pushed to a collector on loopback when the face closes.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getMetricsFromIterator, type PromHistogramData, type PromMetric, type PromMetrics } from "prom2javascript";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, faceConfig, origin, OWNER, PLUGIN, startFaces, SUPPORT, TOKENS } from "../admin/fixture.js";
import { createMcpFace } from "../../src/mcpface/mcp-face.js";
import { routeOf, tenantAttribute } from "../../src/metrics/operator-metrics.js";

async function scrape(url: string, token?: string): Promise<PromMetrics> {
  const response = await fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return getMetricsFromIterator((await response.text()).split("\n")[Symbol.iterator]());
}

type Sample = { labels: Record<string, string>; value?: number; count?: number; sum?: number; buckets?: Record<string, number> };

/** The first series of a family whose labels include these. */
const sampleWith = (family: PromMetric | undefined, labels: Record<string, string>): Sample | undefined =>
  (family?.data as Sample[] | undefined)?.find((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));

/** Counts summed over every series whose labels include these. */
const countOf = (family: PromMetric | undefined, labels: Record<string, string>): number =>
  ((family?.data ?? []) as PromHistogramData[]).filter((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v)).reduce((n, m) => n + m.count, 0);

describe("GET /metrics", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  beforeAll(async () => {
    faces = await startFaces({ metrics: { prometheus: true } });
  }, 60_000);
  afterAll(async () => {
    await faces?.close();
  });

  it("exports HTTP, run, search, call, MCP, bytes, catalog and learning metrics under their conventional names", { timeout: 60_000 }, async () => {
    const turn = await call(`${faces.gateway.url}/v1/runs`, { body: { sessionId: "m1", input: "What is the weather in Paris?" } });
    expect(turn.status).toBe(200);
    const code = await call(`${faces.gateway.url}/v1/runs`, { body: { sessionId: "m2", mode: "code", input: "What is the weather in Paris?" } });
    expect(code.status).toBe(200);
    const run = await faces.gateway.engine.prepareRun({ sessionId: "m3" });
    await run.call("mcp:memory:read_graph", {});
    await run.call("mcp:memory:open_nodes", { names: 7 });
    await run.end();
    await call(`${faces.gateway.url}/admin/v1/search`, { body: { request: "weather" } });

    const metrics = await scrape(faces.gateway.url);
    const http = metrics["http_server_request_duration"];
    expect(http?.type).toBe("histogram");
    expect(sampleWith(http, { http_request_method: "POST", http_route: "/v1/runs", http_response_status_code: "200" })?.count).toBe(2);
    expect(metrics["http_server_active_requests"]?.type).toBe("gauge");

    const runs = metrics["toolsearch_runs_total"];
    expect(runs?.type).toBe("counter");
    expect(sampleWith(runs, { toolsearch_mode: "tools" })?.value).toBe(2);
    expect(sampleWith(runs, { toolsearch_mode: "code" })?.value).toBe(1);
    expect(sampleWith(metrics["toolsearch_run_duration"], { toolsearch_mode: "tools" })?.count).toBe(2);

    const upfront = sampleWith(metrics["toolsearch_run_upfront_size"], { toolsearch_mode: "tools" });
    const direct = sampleWith(metrics["toolsearch_run_direct_size"], { toolsearch_mode: "tools" });
    expect(direct?.sum).toBeGreaterThan(upfront?.sum ?? Infinity);

    expect(sampleWith(metrics["toolsearch_search_duration"], { toolsearch_via: "tool_call" })?.count ?? -1).toBeGreaterThanOrEqual(1);
    expect(sampleWith(metrics["toolsearch_search_duration"], { toolsearch_via: "bridge" })?.count ?? -1).toBeGreaterThanOrEqual(1);
    expect(countOf(metrics["toolsearch_tool_call_duration"], { toolsearch_source: "plugin", toolsearch_outcome: "ok" })).toBe(2);
    expect(countOf(metrics["toolsearch_tool_call_duration"], { toolsearch_source: "plugin", toolsearch_via: "bridge" })).toBe(1);
    expect(sampleWith(metrics["toolsearch_code_duration"], { toolsearch_outcome: "ok" })?.count).toBe(1);

    const mcp = metrics["mcp_client_operation_duration"];
    expect(countOf(mcp, { mcp_method_name: "tools/call", gen_ai_operation_name: "execute_tool", toolsearch_mcp_server: "memory" })).toBe(2);
    expect(sampleWith(mcp, { toolsearch_mcp_server: "memory", error_type: "INVALID_ARGS" })?.count).toBe(1);

    expect(sampleWith(metrics["toolsearch_mcp_server_up"], { toolsearch_mcp_server: "memory" })?.value).toBe(1);
    expect(sampleWith(metrics["toolsearch_catalog_tools"], { toolsearch_source: "mcp", toolsearch_toolset: "memory" })?.value).toBe(9);
    expect(sampleWith(metrics["toolsearch_pool_bodies"], { toolsearch_state: "queued" })?.value).toBe(0);
    expect(sampleWith(metrics["toolsearch_pool_tenant_bodies"], {})).toBeUndefined();
    expect(sampleWith(metrics["toolsearch_learning_records"], { toolsearch_state: "all" })?.value ?? -1).toBeGreaterThanOrEqual(0);
    // The admin API's own search is not traffic.
    expect(sampleWith(metrics["toolsearch_search_duration"], { toolsearch_via: "api" })).toBeUndefined();
  });

  it("counts the MCP face's requests and its sessions (by tenant: a token's label, else other)", async () => {
    expect((await call(`${origin(faces.mcpUrl)}/healthz`)).status).toBe(200);
    const client = new Client({ name: "metrics-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(faces.mcpUrl)));
    try {
      const metrics = await scrape(origin(faces.mcpUrl));
      expect(countOf(metrics["http_server_request_duration"], { http_route: "/healthz", http_response_status_code: "200" })).toBe(1);
      expect(countOf(metrics["http_server_request_duration"], { http_route: "/mcp", http_request_method: "POST" })).toBeGreaterThanOrEqual(1);
      expect(sampleWith(metrics["toolsearch_sessions"], { toolsearch_tenant: "other" })?.value).toBe(1);
      expect(metrics["toolsearch_catalog_tools"]?.data.length).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe("GET /metrics under gateway.auth", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  beforeAll(async () => {
    faces = await startFaces({ metrics: { prometheus: true }, gateway: { auth: { tokens: TOKENS } } });
  }, 60_000);
  afterAll(async () => {
    await faces?.close();
  });

  it("needs an owner token, and counts a token's runs", async () => {
    expect((await call(`${faces.gateway.url}/metrics`)).status).toBe(401);
    expect((await call(`${faces.gateway.url}/metrics`, { token: SUPPORT })).status).toBe(403);
    const metrics = await scrape(faces.gateway.url, OWNER);
    expect("toolsearch_runs_total" in metrics).toBe(false);
    await call(`${faces.gateway.url}/v1/runs`, { token: SUPPORT, body: { sessionId: "t1", input: "What is the weather in Paris?" } });
    expect(sampleWith((await scrape(faces.gateway.url, OWNER))["toolsearch_runs_total"], { toolsearch_mode: "tools" })?.value).toBe(1);
  });
});

describe("metrics over OTLP", () => {
  let collector: Server;
  const received: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        if (req.url === "/v1/metrics") received.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => collector.close(resolve));
  });

  it("pushes the same metrics to OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, the last of them when the face closes", async () => {
    process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/metrics`;
    try {
      const face = await createMcpFace(faceConfig(undefined, { metrics: { otlp: true } }), { sources: [PLUGIN] });
      const run = await face.engine.prepareRun({ sessionId: "otlp" });
      await run.call("plugin:acme:get_weather", { city: "Oslo" });
      await run.end();
      await face.close();
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT;
    }
    const names = JSON.stringify(received).match(/"name":"[a-z_.]+"/g) ?? [];
    expect(names).toEqual(expect.arrayContaining(['"name":"toolsearch.runs"', '"name":"toolsearch.tool.call.duration"', '"name":"toolsearch.catalog.tools"']));
    expect(JSON.stringify(received)).toContain('"service.name"');
  });
});

describe("attributes a caller cannot mint series with", () => {
  it("names a token's tenant and counts every other tenant as other", () => {
    const known = new Set(["support", "token:k1J5Rk0gzQxC2bP4"]);
    expect(tenantAttribute("support", known)).toBe("support");
    expect(tenantAttribute("token:k1J5Rk0gzQxC2bP4", known)).toBe("token:k1J5Rk0gzQxC2bP4");
    for (const tenant of ["session:abc", "address:127.0.0.1", "token:abc", "token:1", "other-tenant", undefined])
      expect(tenantAttribute(tenant, known)).toBe("other");
  });

  it("gives a request a route only when it is one of the faces' fixed routes", () => {
    expect(routeOf("/v1/runs")).toBe("/v1/runs");
    expect(routeOf("/admin/v1/search")).toBe("/admin/v1/search");
    expect(routeOf("/console/assets/index-abc.js")).toBe("/console/*");
    for (const path of ["/admin/v1/anything-a-caller-types", "/v1/runs/x", "/favicon.ico"]) expect(routeOf(path)).toBeUndefined();
  });
});
