/**
 * Document frequencies per term, kept in JS as docs are added, for the FTS5 query planner.
 * (fts5vocab can answer the same, but by walking a term's whole doclist: for a common term,
 * more than the query it is meant to make cheaper.) Only planning reads these counts, so a
 * count that is off would cost speed, never results.
 * Counts the engine's own analysed terms on purpose: imports src/search/analysis/ directly.
 */
import type { AnalyzedDoc } from "../../../src/search/analysis/analyze.js";
import type { TermStats } from "./query-plan.js";

export class TermStatsTable {
  /** term → docs holding it in any field */
  readonly #all: Map<string, number>;
  /** term → docs holding it in the name or id fields */
  readonly #named: Map<string, number>;

  constructor(all = new Map<string, number>(), named = new Map<string, number>()) {
    this.#all = all;
    this.#named = named;
  }

  get(term: string): TermStats {
    return { all: this.#all.get(term) ?? 0, named: this.#named.get(term) ?? 0 };
  }

  add(doc: AnalyzedDoc): void {
    this.#count(doc, 1);
  }

  remove(doc: AnalyzedDoc): void {
    this.#count(doc, -1);
  }

  #count(doc: AnalyzedDoc, delta: 1 | -1): void {
    const named = new Set([...doc.name, ...doc.ident]);
    const all = new Set([...named, ...doc.description, ...doc.params, ...doc.synonyms]);
    for (const term of all) bump(this.#all, term, delta);
    for (const term of named) bump(this.#named, term, delta);
  }

  /** Compact JSON: `[[term, all, named], ...]`. */
  toJSON(): string {
    const rows: Array<[string, number, number]> = [];
    for (const [term, all] of this.#all) rows.push([term, all, this.#named.get(term) ?? 0]);
    return JSON.stringify(rows);
  }

  static fromJSON(json: string): TermStatsTable {
    const rows = JSON.parse(json) as unknown;
    if (!Array.isArray(rows)) throw new Error("term stats: expected an array");
    const all = new Map<string, number>();
    const named = new Map<string, number>();
    for (const row of rows as unknown[]) {
      if (!Array.isArray(row) || typeof row[0] !== "string") throw new Error("term stats: bad row");
      all.set(row[0], Number(row[1]));
      if (Number(row[2]) > 0) named.set(row[0], Number(row[2]));
    }
    return new TermStatsTable(all, named);
  }
}

function bump(map: Map<string, number>, term: string, delta: number): void {
  const next = (map.get(term) ?? 0) + delta;
  if (next > 0) map.set(term, next);
  else map.delete(term);
}
