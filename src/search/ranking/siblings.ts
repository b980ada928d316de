/**
 * Tools that work together, as the catalog's own text links them: within one server or plugin,
 * `add_paragraph(filename, ...)` "Add a paragraph to a Word document" is linked to
 * `create_document(filename, ...)` because its text names the object the other's name is
 * about (document), it takes the same handle (filename), and it acts on another object (a
 * paragraph: a next step, not another view of the document). A task's implied steps (create → add →
 * convert) are such links; search carries them along with a hit (intents.ts withSiblings).
 *
 * Only toolsets of a few tools are read: a toolset of hundreds is a catalog, not a server, and
 * its tools share words by chance. Links are made one toolset at a time, when a hit of that
 * toolset first needs them (ToolIndex.siblings): quadratic in one toolset's size, so bounded by
 * MAX_TOOLSET_TOOLS² per toolset, never a pass over the whole catalog on the shared thread (all
 * toolsets of toolsdk-registry's 8,010 tools at once would be a stall every run waits behind).
 */
import { analyzeText, splitIdentifier, stem } from "../analysis/analyze.js";
import type { SearchDoc } from "../types.js";

/** Toolsets with more tools are not read for links (see above). */
export const MAX_TOOLSET_TOOLS = 64;
/** Siblings kept per tool. */
const MAX_SIBLINGS = 3;
/** A link needs the object named and a shared handle or distinct objects (see link). */
const MIN_LINK = 2;

interface Profile {
  id: string;
  /** Stemmed words of the name but its first one (the verb of `create_document`): what it acts on. */
  objects: string[];
  /** The name's first word: links go between different actions, not `get_x` and `get_y`. */
  verb: string;
  /** Stemmed words of the name and description. */
  words: Set<string>;
  /** Parameter names: the handles a tool takes. */
  params: Set<string>;
}

function profile(doc: SearchDoc): Profile {
  // Without a leading toolset word: `playwright_fill` acts (fill) as `fill` would.
  const toolsetWords = new Set(splitIdentifier(doc.toolset).map((w) => stem(w)));
  const nameWords = splitIdentifier(doc.name).map((w) => stem(w));
  while (nameWords.length > 1 && toolsetWords.has(nameWords[0]!)) nameWords.shift();
  return {
    id: doc.id,
    verb: nameWords[0] ?? "",
    objects: nameWords.slice(1).filter((w) => w.length > 2),
    words: new Set([...nameWords, ...analyzeText(doc.description)]),
    params: new Set(doc.params.map((p) => p.name.toLowerCase())),
  };
}

/**
 * How strongly b's text links it to a: one tool's text names what the other's name is about
 * (required), each handle both take, and one more when their objects differ: `add_paragraph`
 * after `create_document` is a next step, `get_document_info` another look at the same thing.
 */
function link(a: Profile, b: Profile): number {
  if (a.verb === b.verb) return 0;
  const names = a.objects.some((w) => b.words.has(w)) || b.objects.some((w) => a.words.has(w));
  if (!names) return 0;
  let score = 1;
  for (const p of a.params) if (b.params.has(p)) score++;
  if (!a.objects.some((w) => b.objects.includes(w))) score++;
  return score;
}

/** The group a tool's siblings come from: one server or plugin. */
export function toolsetKey(doc: SearchDoc): string {
  return `${doc.source}:${doc.toolset}`;
}

/**
 * id → its linked siblings, strongest first, for the tools of one toolset (toolsetKey); empty for
 * a toolset of one tool or of more than MAX_TOOLSET_TOOLS.
 */
export function linkToolset(group: readonly SearchDoc[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (group.length < 2 || group.length > MAX_TOOLSET_TOOLS) return out;
  const profiles = group.map(profile);
  for (const a of profiles) {
    const linked = profiles
      .filter((b) => b !== a)
      .map((b) => ({ id: b.id, score: link(a, b) }))
      .filter((l) => l.score >= MIN_LINK)
      .sort((x, y) => y.score - x.score)
      .slice(0, MAX_SIBLINGS)
      .map((l) => l.id);
    if (linked.length > 0) out.set(a.id, linked);
  }
  return out;
}

/** Every toolset's links at once (tests and offline figures; ToolIndex links one toolset at a time). */
export function buildSiblings(docs: Iterable<SearchDoc>): Map<string, string[]> {
  const byToolset = new Map<string, SearchDoc[]>();
  for (const doc of docs) {
    const group = byToolset.get(toolsetKey(doc));
    if (group === undefined) byToolset.set(toolsetKey(doc), [doc]);
    else group.push(doc);
  }
  const out = new Map<string, string[]>();
  for (const group of byToolset.values()) for (const [id, linked] of linkToolset(group)) out.set(id, linked);
  return out;
}
