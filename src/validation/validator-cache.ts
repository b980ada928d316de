/**
 * Compiled validators for schemas from untrusted sources (a run's client tools, MCP servers),
 * bounded: keyed by a hash of the schema, least recently used dropped past `maxEntries`.
 *
 * One long-lived ajv would keep every schema it ever compiled (its schema cache and the shared
 * scope of regexes and functions): 6,000 runs with distinct client schemas grew the heap by
 * 320 MB. So each ajv here compiles at most `compilesPerAjv` schemas and is then replaced; an
 * old one is garbage once the validators it made have left this cache and their runs ended.
 */
import { createHash } from "node:crypto";
import type { Ajv, ValidateFunction } from "ajv";
import { createToolAjv } from "./ajv.js";
import { LruMap } from "./lru.js";

export interface ValidatorCacheOptions {
  maxEntries?: number;
  compilesPerAjv?: number;
}

export class ValidatorCache {
  readonly #validators: LruMap<string, ValidateFunction>;
  readonly #compilesPerAjv: number;
  #ajv: Ajv | undefined;
  #compiles = 0;

  constructor(options: ValidatorCacheOptions = {}) {
    this.#validators = new LruMap(options.maxEntries ?? 256);
    this.#compilesPerAjv = options.compilesPerAjv ?? 256;
  }

  get size(): number {
    return this.#validators.size;
  }

  /** The validator for `schema` (already checked against the untrusted-schema caps); compiles on a miss. */
  validator(schema: Record<string, unknown>, key: string = schemaKey(schema)): ValidateFunction {
    const cached = this.#validators.get(key);
    if (cached) return cached;
    const ajv = this.#currentAjv();
    const validate = ajv.compile(schema);
    // Dropped from ajv's own cache at once: this LRU is the only cache that holds it.
    ajv.removeSchema(schema);
    this.#validators.set(key, validate);
    return validate;
  }

  #currentAjv(): Ajv {
    if (this.#ajv === undefined || this.#compiles >= this.#compilesPerAjv) {
      this.#ajv = createToolAjv({ untrusted: true });
      this.#compiles = 0;
    }
    this.#compiles += 1;
    return this.#ajv;
  }
}

/** A content hash of a schema: equal schemas from different runs share one compiled validator. */
export function schemaKey(schema: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(schema) ?? "")
    .digest("base64url");
}
