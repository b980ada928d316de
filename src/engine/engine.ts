/**
 * The engine: built once per process (or per gateway config) by createToolSearch. It owns the
 * catalog, the index cache and the code-mode pool; prepareRun builds one turn's effective
 * catalog, surface and telemetry.
 */
import { Catalog, type RebuildError, type SourceStatus } from "../catalog/catalog.js";
import { admittedCatalog, EffectiveCatalog, type AdmittedCatalog } from "../catalog/effective-catalog.js";
import { toSearchDoc } from "../catalog/search-doc.js";
import type { CatalogEntry } from "../catalog/types.js";
import { createToolAjv } from "../config/ajv.js";
import type { ToolSearchMode } from "../config/tool-search-config.js";
import type { CallEnvironment } from "../dispatch/call-path.js";
import { RunDispatcher } from "../dispatch/run-dispatcher.js";
import { EngineClosedError, NameCollisionError } from "../errors.js";
import { Policy } from "../policy/policy.js";
import type { PolicySubject } from "../policy/types.js";
import { createCodePool } from "../sandbox/index.js";
import type { CodePool, SandboxReport } from "../sandbox/types.js";
import { ToolIndexCache, type IndexHold } from "../search/index-cache.js";
import { bm25fBackend } from "../search/bm25f-backend.js";
import { loadEnglishWords } from "../search/english-words.js";
import { ToolIndex } from "../search/tool-index.js";
import { codeSurface } from "../surfaces/code-surface.js";
import { declareDirect, directSurface, type DirectDeclaration } from "../surfaces/direct-surface.js";
import { directorySurface } from "../surfaces/directory-surface.js";
import { directoryText } from "../surfaces/directory-text.js";
import { structuredSurface } from "../surfaces/structured-surface.js";
import type { Surface } from "../surfaces/surface.js";
import { RunTrace } from "../telemetry/otel.js";
import { RunRecorder } from "../telemetry/run-recorder.js";
import { ValidatorCache } from "../validation/validator-cache.js";
import type { RunTelemetry } from "../telemetry/types.js";
import { checkRunContext, resolveOptions, type ResolvedOptions, type RunContext, type ToolSearchOptions } from "./options.js";
import { newRunId, ToolSearchRun } from "./run.js";

/** Admitted sets are cached per policy subject; this bounds how many subjects are remembered. */
const MAX_CACHED_SUBJECTS = 512;

export class ToolSearchEngine {
  private readonly policy: Policy;
  private readonly indexes = new ToolIndexCache({ maxEntries: 4 });
  private readonly admittedCache = new Map<string, AdmittedCatalog>();
  private readonly directories = new WeakMap<AdmittedCatalog, string>();
  /** Direct-mode declarations (and their byte size) per admitted catalog: 10k schemas are not rebuilt per run. */
  private readonly directDeclarations = new WeakMap<AdmittedCatalog, DirectDeclaration & { bytes: number }>();
  private pool: Promise<CodePool> | undefined;
  private readonly runs = new Set<ToolSearchRun>();
  private closed = false;

  /** @internal use createToolSearch */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly catalog: Catalog,
  ) {
    this.policy = new Policy(options.policy);
    catalog.onChange(() => this.admittedCache.clear());
  }

  /** @internal */
  async start(): Promise<void> {
    await this.catalog.start();
    const warmups: Promise<unknown>[] = [this.indexes.get(this.catalog.docs(), this.options.backend)];
    loadEnglishWords(); // typo correction's guard: decoded here, not during a first query
    if (this.options.settings.mode === "code") warmups.push(this.codePool());
    await Promise.all(warmups);
  }

  get settings(): ResolvedOptions["settings"] {
    return this.options.settings;
  }

  /** Builds one agent turn: effective catalog (policy first), index view, surface, telemetry. */
  async prepareRun(context: RunContext): Promise<ToolSearchRun> {
    if (this.closed) throw new EngineClosedError();
    const ctx = checkRunContext(context);
    await this.catalog.revive();
    const admitted = this.admitted(ctx);
    const effective = new EffectiveCatalog(admitted, this.catalog.clientEntries(ctx.clientTools).filter(this.policy.admitter(ctx)));
    // The run holds the catalog's index until it ends: a catalog change mid-run does not close it.
    const hold = this.indexes.acquire(this.catalog.docs(), this.options.backend);
    try {
      return await this.prepareWith(ctx, admitted, effective, hold);
    } catch (error) {
      void hold.then((h) => h.release(), () => {});
      throw error;
    }
  }

  private async prepareWith(ctx: RunContext, admitted: AdmittedCatalog, effective: EffectiveCatalog, hold: Promise<IndexHold>): Promise<ToolSearchRun> {
    const [{ index, release }, clientIndex] = await Promise.all([hold, clientIndexFor([...effective.clientEntries()])]);
    const requestedMode = ctx.mode ?? this.options.settings.mode;
    const { mode, fallbackReason, pool } = await this.effectiveMode(requestedMode);
    if (mode === "directory") rejectNameCollisions(effective);

    const runId = newRunId();
    const controller = new AbortController();
    const recorder = new RunRecorder({
      runId,
      sessionId: ctx.sessionId,
      mode,
      requestedMode,
      ...(fallbackReason ? { fallbackReason } : {}),
      bySource: effective.bySource(),
      ...(this.options.sessionLog ? { sink: this.options.sessionLog } : {}),
    });
    const trace = new RunTrace({
      runId,
      sessionId: ctx.sessionId,
      mode,
      requestedMode,
      ...(fallbackReason ? { fallbackReason } : {}),
      bySource: effective.bySource(),
      recordQueryText: this.options.tracing.recordQueryText,
    });
    const dispatcher = new RunDispatcher(
      { catalog: effective, index, ...(clientIndex ? { clientIndex } : {}) },
      this.options.settings,
      this.callEnvironment(ctx, runId, controller.signal),
      recorder,
      trace,
    );
    const surface = this.buildSurface(mode, dispatcher, recorder, pool, { admitted, prompt: ctx.prompt });
    const upfront = this.upfront(surface, mode, admitted, effective);
    recorder.setUpfront(upfront, [...surface.upfrontIds]);
    trace.setUpfront(upfront);
    const run = new ToolSearchRun(runId, ctx.sessionId, mode, controller, dispatcher, surface, recorder, (r) => {
        this.runs.delete(r);
        release();
      }, this.options.argsLimits, this.options.settings.maxResultBytes);
    this.runs.add(run);
    return run;
  }

  private callEnvironment(ctx: RunContext, runId: string, signal: AbortSignal): CallEnvironment {
    return {
      hooks: this.options.hooks,
      sessionId: ctx.sessionId,
      ...(ctx.agentId !== undefined ? { agentId: ctx.agentId } : {}),
      runId,
      owner: ctx.owner === true,
      signal,
      timeoutMs: this.options.callTimeoutMs,
      argsLimits: this.options.argsLimits,
    };
  }

  /** What the model is shown up front; the byte size of a cached direct declaration is reused. */
  private upfront(surface: Surface, mode: ToolSearchMode, admitted: AdmittedCatalog, effective: EffectiveCatalog): RunTelemetry["upfront"] {
    const cached = mode === "direct" && effective.clientIds.size === 0 ? this.directDeclarations.get(admitted) : undefined;
    return {
      schemas: surface.upfrontIds.length,
      declaredTools: surface.tools.length,
      toolsBytes: cached?.bytes ?? Buffer.byteLength(JSON.stringify(surface.tools)),
      instructionsBytes: Buffer.byteLength(surface.instructions),
    };
  }

  /** Runs without client tools share one direct declaration per admitted catalog. */
  private directDeclaration(admitted: AdmittedCatalog, effective: EffectiveCatalog): DirectDeclaration {
    if (effective.clientIds.size > 0) return declareDirect(effective.entries());
    let declaration = this.directDeclarations.get(admitted);
    if (!declaration) {
      const declared = declareDirect(admitted.entries);
      declaration = { ...declared, bytes: Buffer.byteLength(JSON.stringify(declared.tools)) };
      this.directDeclarations.set(admitted, declaration);
    }
    return declaration;
  }

  private buildSurface(
    mode: ToolSearchMode,
    dispatcher: RunDispatcher,
    recorder: RunRecorder,
    pool: CodePool | undefined,
    run: { admitted: AdmittedCatalog; prompt: string | undefined },
  ): Surface {
    const { settings } = this.options;
    if (mode === "direct") return directSurface(dispatcher, this.directDeclaration(run.admitted, dispatcher.catalog));
    if (mode === "directory") {
      return directorySurface({ dispatcher, settings, directory: this.directoryFor(run.admitted), ...(run.prompt ? { prompt: run.prompt } : {}) });
    }
    if (mode === "code" && pool) return codeSurface(dispatcher, pool, settings.codeTimeoutMs, recorder);
    return structuredSurface(dispatcher, settings.maxSearchLimit);
  }

  /** Code mode needs a working sandbox; without one it becomes tools mode, and telemetry says why. */
  private async effectiveMode(requested: ToolSearchMode): Promise<{ mode: ToolSearchMode; fallbackReason?: string; pool?: CodePool }> {
    if (requested !== "code") return { mode: requested };
    const pool = await this.codePool();
    const report = pool.report();
    if (report.available) return { mode: "code", pool };
    return { mode: "tools", fallbackReason: `code sandbox unavailable: ${report.reason ?? "unknown reason"}` };
  }

  /** The catalog tools this subject may see; computed once per subject and catalog version. */
  private admitted(subject: PolicySubject): AdmittedCatalog {
    const key = `${this.catalog.version}|${this.policy.subjectKey(subject)}`;
    const cached = this.admittedCache.get(key);
    if (cached) return cached;
    const admit = this.policy.admitter(subject);
    const admitted = admittedCatalog(this.catalog.all().filter(admit));
    if (this.admittedCache.size >= MAX_CACHED_SUBJECTS) this.admittedCache.delete(this.admittedCache.keys().next().value as string);
    this.admittedCache.set(key, admitted);
    return admitted;
  }

  /** One directory text per admitted catalog: stable across runs, whatever the prompt. */
  private directoryFor(admitted: AdmittedCatalog): string {
    let text = this.directories.get(admitted);
    if (text === undefined) {
      text = directoryText(admitted.entries, this.options.settings.directory);
      this.directories.set(admitted, text);
    }
    return text;
  }

  private codePool(): Promise<CodePool> {
    this.pool ??= this.options.codePool ? Promise.resolve(this.options.codePool) : createCodePool(this.options.pool);
    return this.pool;
  }

  /** Which sandbox layers are active (probed when the pool starts; undefined before code mode was first needed). */
  async sandboxReport(): Promise<SandboxReport> {
    return (await this.codePool()).report();
  }

  /** Listens for catalog changes (an MCP server's list changed, went away, came back); returns a function that stops listening. */
  onCatalogChange(listener: () => void): () => void {
    return this.catalog.onChange(listener);
  }

  /** The catalog's size, each source's state, and the last refused rebuild (until one succeeds). */
  catalogStatus(): { size: number; sources: SourceStatus[]; rebuildError?: RebuildError } {
    const rebuildError = this.catalog.rebuildError;
    return { size: this.catalog.size, sources: this.catalog.sourceStatus(), ...(rebuildError ? { rebuildError } : {}) };
  }

  /** Ends every open run, kills every sandbox child, closes sources and indexes. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.runs].map((run) => run.end()));
    // A pool handed in by the caller is the caller's to close.
    const ownPool = this.options.codePool ? undefined : this.pool;
    await Promise.allSettled([ownPool?.then((p) => p.close()), this.catalog.close()]);
    await this.indexes.close();
  }
}

/**
 * Directory mode shows client tools by name next to a directory of catalog names, so a client
 * tool may not share a name with a catalog tool this run can see. Only visible tools are
 * compared: a collision with a hidden tool must not reveal that it exists.
 */
function rejectNameCollisions(effective: EffectiveCatalog): void {
  const clientNames = new Set([...effective.clientEntries()].map((entry) => entry.name));
  if (clientNames.size === 0) return;
  const clashes = effective.catalogEntries().filter((entry) => clientNames.has(entry.name));
  if (clashes.length > 0) {
    throw new NameCollisionError(
      `Client tool name${clashes.length > 1 ? "s" : ""} ${[...new Set(clashes.map((c) => `"${c.name}"`))].join(", ")} collide${clashes.length > 1 ? "" : "s"} with catalog tool${clashes.length > 1 ? "s" : ""} ${clashes.map((c) => c.id).join(", ")}; rename the client tool.`,
    );
  }
}

/**
 * Client tools differ per run and are few, so each run indexes its own in BM25F postings: pure
 * JS, garbage-collected with the run, nothing to close if a caller never ends the run; and
 * ranked with the catalog's statistics, so a client tool competes with catalog tools on
 * equal terms (run-dispatcher.ts). The catalog is never re-indexed for a run.
 */
async function clientIndexFor(entries: readonly CatalogEntry[]): Promise<ToolIndex | undefined> {
  if (entries.length === 0) return undefined;
  return ToolIndex.build(() => bm25fBackend.create(), entries.map(toSearchDoc));
}

export async function createToolSearch(options: ToolSearchOptions = {}): Promise<ToolSearchEngine> {
  const resolved = resolveOptions(options);
  const catalog = new Catalog(resolved.sources, createToolAjv(), { limits: resolved.schemaLimits, validators: new ValidatorCache() });
  const engine = new ToolSearchEngine(resolved, catalog);
  try {
    await engine.start();
  } catch (error) {
    await engine.close();
    throw error;
  }
  return engine;
}
