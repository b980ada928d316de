/**
 * The OpenTelemetry metrics SDK for `serve` and `mcp`, loaded only when `metrics` asks for it:
 * `@opentelemetry/sdk-metrics`, `@opentelemetry/exporter-prometheus` (for `GET /metrics`) and
 * `@opentelemetry/exporter-metrics-otlp-http` (for OTLP) are optional peer dependencies, like
 * the trace SDK (telemetry/otlp-export.ts). Its own MeterProvider, not the global one: these are
 * the process's operator metrics, and an application that embeds the faces keeps its own.
 *
 * Prometheus: a pull reader that never starts a server of its own; the faces answer
 * `GET /metrics` with what it collects, in the Prometheus text format (0.0.4).
 * OTLP: a periodic reader pushing to OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, else
 * OTEL_EXPORTER_OTLP_ENDPOINT (the exporter reads them, and OTEL_EXPORTER_OTLP_HEADERS).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { hostname } from "node:os";
import type { Meter } from "@opentelemetry/api";
import type { MetricsSettings } from "../config/server-config.js";
import { ConfigInvalidError, errorMessage } from "../errors.js";
import { packageVersion } from "../version.js";
import { definedProps } from "../defined.js";

const METRICS_PACKAGES = [
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/resources",
  "@opentelemetry/exporter-prometheus",
  "@opentelemetry/exporter-metrics-otlp-http",
];

/** The text format Prometheus scrapes; the exporter writes it (with OpenMetrics' `# UNIT` comments, which 0.0.4 readers skip). */
const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface MetricsSdk {
  readonly meter: Meter;
  /** Answers `GET /metrics`, when `metrics.prometheus` is on. */
  readonly prometheus?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Where OTLP goes (its origin only: a path or query could hold a secret), when `metrics.otlp` is on. */
  readonly otlpEndpoint?: string;
  /** Collects and pushes what OTLP has not sent yet, then stops the readers. */
  shutdown(): Promise<void>;
}

async function load<T>(specifier: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw new ConfigInvalidError(
      `metrics are on (metrics.prometheus, metrics.otlp or OTEL_METRICS_EXPORTER), but ${specifier} could not be loaded (${errorMessage(error)}); install ${METRICS_PACKAGES.join(" ")}, or turn metrics off`,
    );
  }
}

function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return "(an endpoint that is not a URL)";
  }
}

export async function startMetricsSdk(settings: MetricsSettings, env: NodeJS.ProcessEnv = process.env): Promise<MetricsSdk> {
  const sdk = await load<typeof import("@opentelemetry/sdk-metrics")>("@opentelemetry/sdk-metrics");
  const readers: Array<InstanceType<typeof sdk.MetricReader>> = [];
  let prometheus: MetricsSdk["prometheus"];
  if (settings.prometheus) {
    const { PrometheusExporter, PrometheusSerializer } = await load<typeof import("@opentelemetry/exporter-prometheus")>("@opentelemetry/exporter-prometheus");
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const serializer = new PrometheusSerializer();
    readers.push(exporter);
    prometheus = async (_req, res) => {
      const { resourceMetrics, errors } = await exporter.collect();
      if (errors.length > 0) console.error(`toolsearch: metrics collection errors: ${errors.map(errorMessage).join("; ").slice(0, 500)}`);
      const text = serializer.serialize(resourceMetrics);
      res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE, "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
      res.end(text);
    };
  }
  let otlpEndpoint: string | undefined;
  if (settings.otlp) {
    otlpEndpoint = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (!otlpEndpoint) {
      throw new ConfigInvalidError(
        "metrics.otlp is on but neither OTEL_EXPORTER_OTLP_METRICS_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT says where to send metrics",
      );
    }
    const { OTLPMetricExporter } = await load<typeof import("@opentelemetry/exporter-metrics-otlp-http")>("@opentelemetry/exporter-metrics-otlp-http");
    readers.push(new sdk.PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: settings.exportIntervalMs }));
  }
  const { resourceFromAttributes } = await load<typeof import("@opentelemetry/resources")>("@opentelemetry/resources");
  const provider = new sdk.MeterProvider({
    // One instance per process: `serve --workers` pushes one series per worker, which a collector sums.
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME || "toolsearch",
      "service.version": packageVersion(),
      "service.instance.id": `${hostname()}:${process.pid}`,
    }),
    readers,
  });
  let stopped: Promise<void> | undefined;
  return {
    meter: provider.getMeter("toolsearch", packageVersion()),
    ...definedProps({ prometheus }),
    ...(otlpEndpoint !== undefined ? { otlpEndpoint: originOf(otlpEndpoint) } : {}),
    shutdown() {
      stopped ??= provider.shutdown().catch((error: unknown) => console.error(`toolsearch: metrics shutdown failed: ${errorMessage(error)}`));
      return stopped;
    },
  };
}
