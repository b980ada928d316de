/**
 * Tool-aware text analysis shared by every backend, so that all of them index and query
 * exactly the same terms. Pure functions only; no backend specifics here.
 *
 * Terms are lowercase runs of letters, digits and `_`. Nothing else ever reaches a backend,
 * which is what keeps FTS5 query syntax (quotes, `*`, `NEAR`, `-`, `:`, parentheses) out of
 * the engine whatever the user typed.
 */
import { isEnglishWord } from "./english-words.js";
import { STOPWORDS } from "./stopwords.js";
import { SYNONYM_GROUPS } from "./synonyms.js";

/** A whole identifier plus the words it is made of, as indexed for one field. */
export type Terms = string[];

/** The analysed fields of one tool, ready for a backend's columns. */
export interface AnalyzedDoc {
  /** Words of the tool name (stemmed) plus the whole name as one term. */
  name: Terms;
  /** Words of the id and the toolset, plus the whole id and toolset. */
  ident: Terms;
  description: Terms;
  /** Parameter names (split and whole) and their descriptions. */
  params: Terms;
  /** Synonym-group keys of the name and id words (see synonymKeys). */
  synonyms: Terms;
}

/**
 * One query term and the synonym-group keys it belongs to: backends match the term in every
 * field, OR any of its keys in the synonym field (which holds the keys of name and id words).
 */
export interface QueryTerm {
  term: string;
  synonymKeys: string[];
}

// A "chunk" is a run of characters that can belong to one identifier: letters, digits, marks
// and the separators tool names use (`_ - . : /`). Everything else separates chunks.
const CHUNK = /[\p{L}\p{N}\p{M}]+(?:[_\-.:/@]+[\p{L}\p{N}\p{M}]+)*/gu;
// Inside a chunk: camelCase words, acronyms (the `HTTP` of `getHTTPResponse`), digit runs, and
// runs of scripts without case (CJK, ...). An acronym stops before a capital that starts a word;
// an acronym's plural (`VMs`, `listURLs`, `IDs`) is one word, its `s` dropped (see ACRONYM_PLURAL).
const WORD = /\p{Lu}{2,}s(?!\p{Ll})|\p{Lu}+(?=\p{Lu}\p{Ll})|[\p{Lu}\p{Lt}]?[\p{Ll}\p{M}]+|\p{Lu}+\p{M}*|\p{N}+|[\p{Lo}\p{Lm}\p{M}]+/gu;
const SEPARATORS = /[_\-.:/@]+/g;
/** `VMs` is the plural of `VM`, not `V` + `Ms`: it indexes as `vm`, as `VM` and `vm` do. */
const ACRONYM_PLURAL = /^\p{Lu}{2,}s$/u;
const ASCII_WORD = /^[a-z]+$/;
const PLAIN_ASCII = /^[A-Za-z0-9]*$/;
const SIMPLE_WORD = /^(?:[A-Z]?[a-z]+|[0-9]+)$/;
/** Lowercase letters or digits between separators, each part all letters or all digits: what the WORD split leaves as it is. */
const SNAKE_IDENTIFIER = /^(?:[a-z]+|[0-9]+)(?:[_\-.:/@]+(?:[a-z]+|[0-9]+))*$/;

/**
 * Lowercases, folds Latin diacritics (café → cafe, so either spelling finds the other) and
 * strips what backends must never see: everything but letters, digits, marks and `_`.
 * Only the combining-diacritics block is dropped: marks that other scripts need stay.
 */
function clean(term: string): string {
  // Fast path: most words are plain ASCII, and normalising them is most of the analysis cost.
  if (PLAIN_ASCII.test(term)) return term.toLowerCase();
  return term
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_]+/gu, "");
}

/**
 * Splits one identifier into its words: `getHTTPResponse` → get, http, response;
 * `mcp:github:create_issue` → mcp, github, create, issue. Not stemmed, not filtered.
 */
export function splitIdentifier(identifier: string): string[] {
  // Fast path for the common case, a plain word ("send", "Email", "2024"): no regex iteration.
  if (SIMPLE_WORD.test(identifier)) return [identifier.toLowerCase()];
  // And for a lowercase identifier of plain parts (`send_email_2`, `get-weather`): its separators are its only splits.
  if (SNAKE_IDENTIFIER.test(identifier)) return identifier.split(SEPARATORS);
  const words: string[] = [];
  const text = PLAIN_ASCII.test(identifier) ? identifier : identifier.normalize("NFC");
  for (const part of text.split(SEPARATORS)) {
    for (const match of part.matchAll(WORD)) {
      const word = clean(ACRONYM_PLURAL.test(match[0]) ? match[0].slice(0, -1) : match[0]);
      if (word !== "") words.push(word);
    }
  }
  return words;
}

/**
 * The whole identifier as one canonical term, its words joined by `_`, so that
 * `getWeatherForecast`, `get-weather-forecast` and `get_weather_forecast` all give
 * `get_weather_forecast` (and `mcp:github:create_issue` gives `mcp_github_create_issue`).
 * Undefined when the chunk is a single word.
 */
export function wholeTerm(chunk: string): string | undefined {
  const words = splitIdentifier(chunk);
  return words.length > 1 ? words.join("_") : undefined;
}

/**
 * A small, predictable suffix stripper for English (not Porter): plurals, -ing, -ed, -tion,
 * and a final -e, so that create/creates/creating/created/creation all become `creat`.
 * Only plain ASCII words of 4+ letters are touched; other scripts pass through unchanged.
 */
export function stem(word: string): string {
  if (word.length < 4 || !ASCII_WORD.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith("ing") && hasVowel(w.slice(0, -3)) && w.length - 3 >= 3) {
    w = undouble(w.slice(0, -3));
  } else if (w.endsWith("ied") && w.length > 4) {
    w = `${w.slice(0, -3)}y`;
  } else if (w.endsWith("ed") && !w.endsWith("eed") && hasVowel(w.slice(0, -2)) && w.length - 2 >= 3) {
    w = undouble(w.slice(0, -2));
  } else if (w.endsWith("tion") && w.length - 3 >= 4) {
    w = w.slice(0, -3);
  }
  if (w.endsWith("e") && w.length >= 4 && !w.endsWith("ee")) w = w.slice(0, -1);
  return w;
}

function hasVowel(s: string): boolean {
  return /[aeiouy]/.test(s);
}

/** running → run, stopped → stop; but fill, pass, buzz keep their double letter. */
function undouble(w: string): string {
  const n = w.length;
  if (n >= 3 && w[n - 1] === w[n - 2] && !/[lsz]/.test(w[n - 1] ?? "")) return w.slice(0, -1);
  return w;
}

/** Single ASCII letters (the `v` of `v2`, the shards of random ids) match everything and mean nothing. */
function isNoiseWord(word: string): boolean {
  return word.length === 1 && word >= "a" && word <= "z";
}

/**
 * Text → index terms: for each identifier-like chunk, the whole identifier (when it has
 * several words) and each word, stopwords dropped, words stemmed. Order is kept and
 * duplicates are kept (term frequency matters to BM25).
 */
export function analyzeText(text: string): Terms {
  const terms: string[] = [];
  for (const match of text.matchAll(CHUNK)) {
    const chunk = match[0];
    for (const term of chunk.length <= MAX_REMEMBERED_CHUNK && PLAIN_LETTERS.test(chunk) ? rememberedChunkTerms(chunk) : chunkTerms(chunk)) terms.push(term);
  }
  return terms;
}

/** The terms of one identifier-like chunk of text, in analyzeText's order. */
function chunkTerms(chunk: string): string[] {
  const terms: string[] = [];
  const words = splitIdentifier(chunk);
  if (words.length > 1) terms.push(words.join("_")); // the whole identifier (see wholeTerm)
  for (const word of words) for (const term of word.length <= MAX_REMEMBERED_CHUNK ? rememberedWordTerms(word) : wordTerms(word)) terms.push(term);
  return terms;
}

/** One word's terms: none for a stopword or noise, else its stem and, for a closed compound, its parts. */
function wordTerms(word: string): string[] {
  if (STOPWORDS.has(word) || isNoiseWord(word)) return [];
  const stemmed = stem(word);
  return [stemmed, ...compoundParts(word, stemmed)];
}

/**
 * Words analysed lately, by their text: a catalog's descriptions and people's requests repeat
 * the same few thousand words, and a word's analysis (split, stem, the compound test's English
 * lookups) costs far more than a lookup. Bounded: short plain words only (identifiers, ids and
 * numbers rarely repeat, and would only churn it), and emptied when full.
 */
const PLAIN_LETTERS = /^[A-Za-z]+$/;
const remembered = new Map<string, readonly string[]>();
const MAX_REMEMBERED = 16_384;
const MAX_REMEMBERED_CHUNK = 64;

/** The words of identifiers (`send` of `send_email_2`) repeat as plain words do: remembered the same way. */
const rememberedWords = new Map<string, readonly string[]>();

function rememberedWordTerms(word: string): readonly string[] {
  let terms = rememberedWords.get(word);
  if (terms === undefined) {
    terms = wordTerms(word);
    if (rememberedWords.size >= MAX_REMEMBERED) rememberedWords.clear();
    rememberedWords.set(word, terms);
  }
  return terms;
}

function rememberedChunkTerms(chunk: string): readonly string[] {
  let terms = remembered.get(chunk);
  if (terms === undefined) {
    terms = chunkTerms(chunk);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(chunk, terms);
  }
  return terms;
}

/** Shortest and longest word tried as a compound, and shortest part. */
const MIN_COMPOUND = 6;
/** Longer "words" are ids or junk; the bound also keeps the split loop (quadratic in length) cheap on hostile input. */
const MAX_COMPOUND = 24;
const MIN_PART = 3;

/**
 * The stemmed parts of a closed compound that is not itself an English word: "hackernews" →
 * hacker, new; "codebase" → code, base. Tool and server names run words together that people
 * type apart (and the other way round); indexing and querying both with the parts lets either
 * spelling find the other. Two parts of 3+ letters, both English (english-words.ts); of several
 * such splits, the most even one. [] for anything else.
 */
export function compoundParts(word: string, stemmed: string): string[] {
  if (word.length < MIN_COMPOUND || word.length > MAX_COMPOUND || !ASCII_WORD.test(word) || isEnglishWord(stemmed)) return [];
  let best: string[] = [];
  let bestShortest = 0;
  for (let cut = MIN_PART; cut <= word.length - MIN_PART; cut++) {
    const shortest = Math.min(cut, word.length - cut);
    if (shortest <= bestShortest) continue;
    const head = stem(word.slice(0, cut));
    const tail = stem(word.slice(cut));
    if (isEnglishWord(head) && isEnglishWord(tail)) {
      best = [head, tail];
      bestShortest = shortest;
    }
  }
  return best;
}

/** Identifiers (names, ids): like analyzeText, but a one-word identifier is kept even if it is a stopword. */
export function analyzeIdentifier(identifier: string): Terms {
  const terms = analyzeText(identifier);
  if (terms.length === 0) {
    const plain = clean(identifier);
    if (plain !== "") terms.push(plain);
  }
  return terms;
}

/** The minimal shape analyzeDoc reads (a SearchDoc satisfies it). */
export interface AnalyzableDoc {
  id: string;
  name: string;
  toolset: string;
  description: string;
  params: ReadonlyArray<{ name: string; description: string }>;
}

/** A doc's parameters as one field: each name (an identifier), then its description. */
export function analyzeParams(params: AnalyzableDoc["params"]): string[] {
  const terms: string[] = [];
  for (const param of params) {
    terms.push(...analyzeIdentifier(param.name), ...analyzeText(param.description));
  }
  return terms;
}

export function analyzeDoc(doc: AnalyzableDoc): AnalyzedDoc {
  const params = analyzeParams(doc.params);
  const name = analyzeIdentifier(doc.name);
  const ident = [...analyzeIdentifier(doc.id), ...analyzeIdentifier(doc.toolset)];
  const synonyms = new Set<string>();
  for (const term of [...name, ...ident]) for (const key of synonymKeys(term)) synonyms.add(key);
  return { name, ident, description: analyzeText(doc.description), params, synonyms: [...synonyms] };
}

/*
 * Synonyms are matched through group keys rather than by OR-ing every synonym into the query:
 * the key sits in its own low-weight field, so "create" still prefers create_issue (name match
 * plus key match) over add_issue_comment (key match only). With plain OR-groups a rare
 * synonym ("lookup") outscores the common word the user typed ("search"), and BM25 in FTS5
 * cannot weigh query terms. Keys contain "__", which analysed words never do.
 */
const SYNONYM_KEYS: ReadonlyMap<string, readonly string[]> = buildSynonymKeys(SYNONYM_GROUPS);

function buildSynonymKeys(groups: ReadonlyArray<readonly string[]>): Map<string, string[]> {
  const map = new Map<string, string[]>();
  groups.forEach((group, i) => {
    const key = `syn__${i}`;
    for (const word of new Set(group.map((w) => stem(w)))) {
      const keys = map.get(word) ?? [];
      keys.push(key);
      map.set(word, keys);
    }
  });
  return map;
}

/** The synonym-group keys of one analysed (stemmed) term: [] for words in no group. */
export function synonymKeys(term: string): readonly string[] {
  return SYNONYM_KEYS.get(term) ?? [];
}

/** The words of the synonym groups a term belongs to, the term itself excluded (for display and tests). */
export function synonymsOf(term: string): string[] {
  const keys = new Set(synonymKeys(term));
  const out = new Set<string>();
  SYNONYM_GROUPS.forEach((group, i) => {
    if (keys.has(`syn__${i}`)) for (const w of group) out.add(stem(w));
  });
  out.delete(term);
  return [...out];
}

// `<resource-group-name>`, `{vaultName}`: a value to fill in, named like the parameter that takes it.
const PLACEHOLDER = /<([\p{L}\p{N}_\-.:]{1,64})>|\{([\p{L}\p{N}_\-.:]{1,64})\}/gu;

/**
 * A request that quotes a command's placeholders ("list VMs in <resource-group-name>") names a
 * parameter, not what to do: each placeholder of several words counts as its whole identifier
 * only (`resource_group_name`, which a parameter of that name holds), not as its words
 * ("resource", "group", "name" would favour every tool that mentions a name). A one-word
 * placeholder (`<city>`) stays a word. Returns the text without them and their whole terms.
 */
function placeholders(query: string): { text: string; wholes: string[] } {
  if (!query.includes("<") && !query.includes("{")) return { text: query, wholes: [] };
  const wholes: string[] = [];
  const text = query.replace(PLACEHOLDER, (all: string, angle?: string, brace?: string) => {
    const whole = wholeTerm(angle ?? brace ?? "");
    if (whole === undefined) return ` ${angle ?? brace ?? ""} `;
    wholes.push(whole);
    return " ";
  });
  return { text, wholes };
}

/** Longer queries are cut: beyond this many distinct terms a query only gets slower, not better. */
export const MAX_QUERY_TERMS = 48;

/**
 * Raw user text → distinct query terms, each with its synonym-group keys. An empty array
 * means the query has no usable terms (only stopwords or punctuation): callers return [].
 */
export function analyzeQuery(query: string): QueryTerm[] {
  const seen = new Set<string>();
  const out: QueryTerm[] = [];
  const { text, wholes } = placeholders(query);
  for (const term of [...analyzeText(text), ...wholes]) {
    if (seen.has(term)) continue;
    seen.add(term);
    out.push({ term, synonymKeys: [...synonymKeys(term)] });
    if (out.length >= MAX_QUERY_TERMS) break;
  }
  return out;
}
