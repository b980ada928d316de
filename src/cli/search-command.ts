/** `toolsearch search "<request>"`: the hits a run would get, as a given identity, and with `--explain` why each is where it is. */
import { randomUUID } from "node:crypto";
import { IDENTITY_USAGE, openCatalogEngine, subjectOf, type IdentityOptions } from "./catalog-engine.js";
import { hitsText } from "./explain-text.js";
import { UsageError, type CommandIo } from "./usage.js";
import { definedProps } from "../defined.js";

export const SEARCH_USAGE = `Usage: toolsearch search "<request>" [--explain] [--limit N] [--agent ID] [--profile NAME] [--channel NAME] [--owner] [--json] [--config FILE]

  Searches the config's catalog as a run would (policy, learning from use, the same ranking)
  and prints the hits: id, score, one-line description and parameters. Nothing is recorded or
  learned. Hits learning moved up are marked "learned"; "weak" hits are partial matches given
  because no tool holds the request's words.
  --explain        Also why each hit is where it is: the ranking steps (exact name, the whole
                   request's list, each clause's, fusion, siblings, typo and thesaurus
                   expansions, learning) and, per list, each request word's BM25F score split
                   over the fields name, toolset, description and params.
  --limit N        Hits to show (default tools.toolSearch.searchDefaultLimit, at most maxSearchLimit).
${IDENTITY_USAGE}
  --json           The hits as JSON on stdout (with --explain, each with its detail.steps).
  --config FILE    The config file (default: ./toolsearch.config.json5).`;

export interface SearchCommandOptions extends IdentityOptions {
  config?: string;
  explain?: boolean;
  limit?: string;
  json?: boolean;
}

export async function searchCommand(options: SearchCommandOptions, positionals: readonly string[], io: CommandIo): Promise<number> {
  const request = positionals.join(" ").trim();
  if (request === "") throw new UsageError('say what to search for: toolsearch search "send an email"', SEARCH_USAGE);
  const limit = parseLimit(options.limit);
  const subject = subjectOf(options);
  const engine = await openCatalogEngine(options.config, io, "search");
  try {
    const run = await engine.prepareRun({ sessionId: `cli-search-${randomUUID()}`, ...(subject ?? {}) });
    try {
      const hits = await run.explain(request, { ...definedProps({ limit }), detail: options.explain === true });
      if (options.json) io.out(JSON.stringify(hits, null, 2));
      else
        for (const line of hitsText(request, hits, `as ${subject ? describeSubject(options) : "a caller with no agent, profile or channel, not an owner"}`))
          io.out(line);
      return 0;
    } finally {
      await run.end();
    }
  } finally {
    await engine.close();
  }
}

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 1) throw new UsageError(`--limit must be a positive integer; got "${value}"`, SEARCH_USAGE);
  return n;
}

function describeSubject(options: IdentityOptions): string {
  const parts = [
    options.agent !== undefined ? `agent ${JSON.stringify(options.agent)}` : "",
    options.profile !== undefined ? `profile ${JSON.stringify(options.profile)}` : "",
    options.channel !== undefined ? `channel ${JSON.stringify(options.channel)}` : "",
    options.owner === true ? "owner" : "",
  ];
  return parts.filter(Boolean).join(", ");
}
