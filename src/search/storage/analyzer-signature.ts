/**
 * A short hash of everything that decides which terms land in an index: analyzer output on a
 * probe text, the stopword, synonym and thesaurus tables, the BM25F fields and parameters,
 * the BM25F snapshot format, and the snapshot's SQLite schema.
 * A snapshot built by another copy of this code (the compiled worker in dist/ while tests
 * run the TypeScript sources, or an old dist/) is only used when the signatures agree;
 * otherwise queries would be analysed differently from the index, and fail quietly.
 */
import { createHash } from "node:crypto";
import { SNAPSHOT_SCHEMA_SQL } from "../backends/snapshot-schema.js";
import { analyzeDoc, analyzeQuery } from "../analysis/analyze.js";
import { STOPWORDS } from "../analysis/stopwords.js";
import { SYNONYM_GROUPS } from "../analysis/synonyms.js";
import { THESAURUS_GROUPS } from "../query/thesaurus.js";
import { BM25F_SNAPSHOT_FORMAT, DEFAULT_BM25F, fieldTerms } from "../scoring/bm25f.js";

const PROBE = {
  id: "mcp:git-hub:createIssue_v2",
  name: "getHTTPResponse.parse-JSON",
  toolset: "Café Owner",
  description: "Creates, lists and deleted the running processes' images; 東京 weather ✓ and naïve users of hackernews, listing VMs by their IDs.",
  params: [{ name: "repoName", description: "Searching tickets for queries" }],
};

let cached: string | undefined;

export function analyzerSignature(): string {
  if (cached === undefined) {
    const material = JSON.stringify([
      analyzeDoc(PROBE),
      analyzeQuery("please find and update the repos' mails in <resource-group-name>"),
      [...STOPWORDS].sort(),
      SYNONYM_GROUPS,
      THESAURUS_GROUPS,
      fieldTerms(PROBE),
      DEFAULT_BM25F,
      BM25F_SNAPSHOT_FORMAT,
      SNAPSHOT_SCHEMA_SQL,
    ]);
    cached = createHash("sha256").update(material).digest("hex").slice(0, 16);
  }
  return cached;
}
