/**
 * The catalog: every registered tool (core, plugin, MCP) with its id and validator, rebuilt
 * when a source changes. Client tools are per run and never enter it (see clientEntries).
 */
import type { Ajv } from "ajv";
import { ConfigInvalidError, errorMessage } from "../errors.js";
import { publishFailure } from "../error-channel.js";
import type { CatalogSource } from "./sources.js";
import { toSearchDoc, type SearchDoc } from "./search-doc.js";
import { toolId } from "./tool-id.js";
import type { CatalogEntry, ToolDefinition, ToolSource } from "./types.js";
import { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from "../validation/schema-limits.js";
import { ValidatorCache } from "../validation/validator-cache.js";
import type { ValidateFunction } from "ajv";
import { cachedValidator, checkInputSchema, checkDefinitionShape, compileValidator } from "./validate-definition.js";
import { definedProps } from "../defined.js";
import type { RebuildError, SourceStatus } from "./source-status.js";

export type { RebuildError, SourceStatus } from "./source-status.js";

export class Catalog {
  private entries: CatalogEntry[] = [];
  private byId = new Map<string, CatalogEntry>();
  /** The ids of byId, made when first asked for (everything()). */
  private idSet: Set<string> | undefined;
  private docList: SearchDoc[] | undefined;
  /** Why a source's start() failed, for sources that do not report their own state (`problem`). */
  private readonly startErrors = new Map<CatalogSource, string>();
  /** Tools taken from each source at the last rebuild, and why some were left out. */
  private readonly built = new Map<CatalogSource, { tools: number; refused?: string }>();
  private readonly listeners = new Set<() => void>();
  private started = false;
  /**
   * Entries and search docs already built, by definition object: when one MCP server's list
   * changes, the other sources' tools (10k static ones, say) are neither re-checked nor
   * re-described, and their unchanged doc objects keep the index fingerprint cheap.
   */
  private readonly builtEntries = new WeakMap<CatalogSource, WeakMap<object, CatalogEntry>>();
  private readonly builtDocs = new WeakMap<CatalogEntry, SearchDoc>();
  private failure: RebuildError | undefined;
  /** Bumped whenever the set of tools changes; caches key on it. */
  version = 0;

  /**
   * `ajv` gives the ajv that compiles the trusted (core, plugin) schemas, once each, at their first use. Schemas from untrusted sources
   * (client tools, MCP servers) must fit `untrusted.limits` and compile into the bounded cache.
   */
  constructor(
    private readonly sources: readonly CatalogSource[],
    private readonly ajv: () => Ajv,
    private readonly untrusted: { limits: SchemaLimits; validators: ValidatorCache } = { limits: DEFAULT_SCHEMA_LIMITS, validators: new ValidatorCache() },
  ) {
    const compiled = new WeakMap<CatalogEntry, ValidateFunction>();
    // One function for every trusted entry, called as its method (`this` is the entry): a closure
    // per entry held a context each, 11 MiB at 100k tools, for validators most tools never need.
    this.trustedValidator = function (this: CatalogEntry): ValidateFunction {
      let validate = compiled.get(this);
      if (validate === undefined) compiled.set(this, (validate = compileValidator(ajv(), this.id, this.definition.inputSchema)));
      return validate;
    };
  }

  /** The validator method of core and plugin entries: compiled at the first call (or describe) that needs it. */
  private readonly trustedValidator: (this: CatalogEntry) => ValidateFunction;

  /**
   * Starts every source, side by side. A source that fails to start is reported in
   * `sourceStatus()` and skipped; one that starts slowly (an MCP server past its connect timeout)
   * is waited for no longer than it says and joins when it is ready: its change is heard, and the
   * catalog rebuilds. Bad definitions (invalid schema, duplicate id) are configuration errors and throw.
   */
  async start(): Promise<void> {
    // Listening first: a source that becomes ready after start() stopped waiting must be heard.
    for (const source of this.sources) source.onChange?.(() => this.rebuildAfterChange());
    await Promise.all(this.sources.map((source) => this.startSource(source)));
    this.started = true;
    this.rebuild();
  }

  private async startSource(source: CatalogSource): Promise<void> {
    try {
      await source.start?.();
    } catch (error) {
      this.startErrors.set(source, errorMessage(error));
    }
  }

  /**
   * A change notified by a live source (MCP list_changed, a server gone): rebuild, never throw.
   * A source that now offers a bad definition keeps the previous catalog; the failure is kept
   * for `rebuildError` and published on "toolsearch:error".
   */
  private rebuildAfterChange(): void {
    // Before start() has rebuilt once, its own rebuild takes the change in (and throws for bad definitions).
    if (!this.started) return;
    try {
      this.rebuild();
    } catch (error) {
      const { code, message, time } = publishFailure("catalog_rebuild", error, {}, "CONFIG_INVALID");
      this.failure = { code, message, time };
    }
  }

  private rebuild(): void {
    const entries: CatalogEntry[] = [];
    const byId = new Map<string, CatalogEntry>();
    for (const source of this.sources) {
      if (!source.problem && this.startErrors.has(source)) continue;
      const defs = source.tools();
      const refused: string[] = [];
      for (const def of defs) {
        const entry = this.admit(source, def, refused);
        if (!entry) continue;
        if (byId.has(entry.id)) throw new ConfigInvalidError(`Duplicate tool id "${entry.id}": two tools with the same id cannot be registered.`);
        byId.set(entry.id, entry);
        entries.push(entry);
      }
      const tools = defs.length - refused.length;
      this.built.set(source, refused.length > 0 ? { tools, refused: `${refused.length} tool(s) left out: ${refused.slice(0, 3).join("; ")}` } : { tools });
    }
    this.entries = entries;
    this.byId = byId;
    this.idSet = undefined;
    this.failure = undefined;
    this.docList = undefined;
    this.version += 1;
    for (const listener of this.listeners) listener();
  }

  /**
   * The entry for a definition; a bad definition from an MCP server (untrusted, and changing
   * under us) is left out and reported in the source status instead of failing the catalog.
   */
  private admit(source: CatalogSource, def: ToolDefinition, refused: string[]): CatalogEntry | undefined {
    if (source.source !== "mcp") return this.entryFor(source, def);
    try {
      return this.entryFor(source, def);
    } catch (error) {
      if (!(error instanceof ConfigInvalidError)) throw error;
      refused.push(error.message.slice(0, 300));
      return undefined;
    }
  }

  private entryFor(source: CatalogSource, def: ToolDefinition): CatalogEntry {
    let built = this.builtEntries.get(source);
    if (!built) this.builtEntries.set(source, (built = new WeakMap()));
    const known = typeof def === "object" && def !== null ? built.get(def) : undefined;
    if (known) return known;
    const entry = this.makeEntry(source.source, source.toolset, def, source);
    built.set(def, entry);
    return entry;
  }

  private makeEntry(source: ToolSource, toolset: string, def: unknown, origin?: CatalogSource): CatalogEntry {
    checkDefinitionShape(def, `${source}${source === "core" || source === "client" ? "" : `:${toolset}`}`);
    const id = toolId(source, toolset, def.name);
    const trusted = source === "core" || source === "plugin";
    checkInputSchema(id, def.inputSchema, trusted ? undefined : this.untrusted.limits);
    return {
      id,
      name: def.name,
      source,
      toolset,
      definition: def,
      ownerOnly: def.ownerOnly === true,
      validator: trusted ? this.trustedValidator : cachedValidator(this.untrusted.validators, id, def.inputSchema),
      ...(origin?.unavailableReason ? { unavailableReason: () => origin.unavailableReason?.() } : {}),
    };
  }

  /** Entries for one run's client tools; ids `client:<name>`, duplicates rejected. */
  clientEntries(definitions: readonly ToolDefinition[] | undefined): CatalogEntry[] {
    if (definitions === undefined) return [];
    if (!Array.isArray(definitions)) throw new ConfigInvalidError("clientTools must be an array of tool definitions");
    const seen = new Set<string>();
    return definitions.map((def) => {
      const entry = this.makeEntry("client", "client", def);
      if (seen.has(entry.id)) throw new ConfigInvalidError(`Duplicate tool id "${entry.id}" in clientTools.`);
      seen.add(entry.id);
      return entry;
    });
  }

  all(): readonly CatalogEntry[] {
    return this.entries;
  }

  get(id: string): CatalogEntry | undefined {
    return this.byId.get(id);
  }

  /**
   * Every entry's id, and every entry by id, as of this version (new ones at each rebuild: a
   * holder keeps the catalog as it was): what every subject that policy lets see the whole
   * catalog shares.
   */
  everything(): { ids: ReadonlySet<string>; byId: ReadonlyMap<string, CatalogEntry> } {
    this.idSet ??= new Set(this.byId.keys());
    return { ids: this.idSet, byId: this.byId };
  }

  get size(): number {
    return this.entries.length;
  }

  docs(): readonly SearchDoc[] {
    this.docList ??= this.entries.map((entry) => {
      let doc = this.builtDocs.get(entry);
      if (!doc) this.builtDocs.set(entry, (doc = toSearchDoc(entry)));
      return doc;
    });
    return this.docList;
  }

  /** Each source's state now, in the order the sources were given (not the order they finished starting). */
  sourceStatus(): SourceStatus[] {
    return this.sources.map((source) => {
      const problem = source.problem ? source.problem() : (this.startErrors.get(source) ?? source.unavailableReason?.());
      const built = this.built.get(source);
      const error = problem ?? built?.refused;
      return {
        source: source.source,
        toolset: source.toolset,
        ok: problem === undefined,
        tools: built?.tools ?? 0,
        ...definedProps({ error }),
      };
    });
  }

  /** The last refused rebuild, until a rebuild succeeds. */
  get rebuildError(): RebuildError | undefined {
    return this.failure;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.allSettled(this.sources.flatMap((source) => source.close?.() ?? []));
  }
}
