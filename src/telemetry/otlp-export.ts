/**
 * OTLP trace export for the long-running commands (`toolsearch serve`), on only when the
 * standard OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set and
 * OTEL_SDK_DISABLED is not "true". The SDK is loaded only then: `@opentelemetry/sdk-trace-base`,
 * `@opentelemetry/exporter-trace-otlp-http` (OTLP/HTTP JSON), `@opentelemetry/resources` and
 * `@opentelemetry/context-async-hooks` are optional peer dependencies, not needed otherwise.
 * The exporter reads the other OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself;
 * OTEL_SERVICE_NAME names the service (default "toolsearch").
 */
import { context, trace } from "@opentelemetry/api";
import { ConfigInvalidError, errorMessage } from "../errors.js";

export interface OtlpExport {
  /** Where spans go, for the startup line. */
  readonly endpoint: string;
  /** Flushes the spans still buffered and unregisters the SDK. */
  shutdown(): Promise<void>;
}

const PACKAGES = ["@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/resources", "@opentelemetry/context-async-hooks"];

function otlpEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
}

/** Starts OTLP export when the environment asks for it; undefined when it does not. */
export async function startOtlpExport(env: NodeJS.ProcessEnv = process.env): Promise<OtlpExport | undefined> {
  const endpoint = otlpEndpoint(env);
  if (!endpoint) return undefined;
  let sdk, exporterModule, resources, hooks;
  try {
    [sdk, exporterModule, resources, hooks] = await Promise.all([
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/context-async-hooks"),
    ]);
  } catch (error) {
    throw new ConfigInvalidError(
      `OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK could not be loaded (${errorMessage(error)}); install ${PACKAGES.join(" ")}, or unset the variable`,
    );
  }
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "toolsearch" }),
    spanProcessors: [new sdk.BatchSpanProcessor(new exporterModule.OTLPTraceExporter())],
  });
  const contextManager = new hooks.AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  let done: Promise<void> | undefined;
  return {
    endpoint,
    shutdown() {
      done ??= provider
        .shutdown()
        .catch((error: unknown) => console.error(`toolsearch: OTLP export shutdown failed: ${errorMessage(error)}`))
        .finally(() => {
          trace.disable();
          context.disable();
        });
      return done;
    },
  };
}
