/**
 * One run's effective catalog: the shared catalog's tools that policy admits, plus the run's
 * own client tools that policy admits. A view, not a copy: the admitted set is cached per
 * policy subject by the engine, so preparing a run over a big catalog costs a lookup.
 */
import type { CatalogEntry, ToolSource } from "./types.js";

/** The admitted part of the shared catalog for one policy subject (cached across runs). */
export interface AdmittedCatalog {
  ids: ReadonlySet<string>;
  entries: readonly CatalogEntry[];
  /**
   * The entries by id, as they were when the run was prepared: a tool whose source vanished
   * mid-run still resolves, so its call fails TOOL_UNAVAILABLE rather than TOOL_NOT_FOUND.
   */
  byId: ReadonlyMap<string, CatalogEntry>;
  bySource: Record<ToolSource, number>;
  /** Values derived from these entries alone (see EffectiveCatalog.shared). */
  derived: Map<string, unknown>;
}

export class EffectiveCatalog {
  private readonly client: ReadonlyMap<string, CatalogEntry>;
  readonly clientIds: ReadonlySet<string>;

  constructor(
    private readonly admitted: AdmittedCatalog,
    clientEntries: readonly CatalogEntry[],
  ) {
    this.client = new Map(clientEntries.map((entry) => [entry.id, entry]));
    this.clientIds = new Set(this.client.keys());
  }

  get catalogIds(): ReadonlySet<string> {
    return this.admitted.ids;
  }

  get(id: string): CatalogEntry | undefined {
    return this.client.get(id) ?? this.admitted.byId.get(id);
  }

  get size(): number {
    return this.admitted.ids.size + this.client.size;
  }

  /** Catalog tools first (in registration order), then client tools. */
  *entries(): IterableIterator<CatalogEntry> {
    yield* this.admitted.entries;
    yield* this.client.values();
  }

  catalogEntries(): readonly CatalogEntry[] {
    return this.admitted.entries;
  }

  clientEntries(): IterableIterator<CatalogEntry> {
    return this.client.values();
  }

  /**
   * A value derived from the admitted catalog tools alone (not the client tools), built once
   * and shared by every run of the same policy subject and catalog version: a direct-mode
   * declaration of 10k schemas, directory mode's text.
   */
  shared<T>(key: string, build: () => T): T {
    if (!this.admitted.derived.has(key)) this.admitted.derived.set(key, build());
    return this.admitted.derived.get(key) as T;
  }

  bySource(): Record<ToolSource, number> {
    return { ...this.admitted.bySource, client: this.client.size };
  }
}

/**
 * `shared`, when given, holds a set and a map of exactly `entries` (the catalog's own, when policy
 * admits every tool): every subject that sees the whole catalog shares them instead of its own.
 */
export function admittedCatalog(
  entries: readonly CatalogEntry[],
  shared?: { ids: ReadonlySet<string>; byId: ReadonlyMap<string, CatalogEntry> },
): AdmittedCatalog {
  return {
    ids: shared?.ids ?? new Set(entries.map((e) => e.id)),
    entries,
    byId: shared?.byId ?? new Map(entries.map((e) => [e.id, e])),
    bySource: countBySource(entries),
    derived: new Map(),
  };
}

function countBySource(entries: readonly CatalogEntry[]): Record<ToolSource, number> {
  const counts: Record<ToolSource, number> = { core: 0, plugin: 0, mcp: 0, client: 0 };
  for (const entry of entries) counts[entry.source] += 1;
  return counts;
}
