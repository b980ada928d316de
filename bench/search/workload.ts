/**
 * The search bench's workload, shared with the learning latency bench: the registry catalog
 * copied up to a size (copies renamed, so every id and name is distinct), and the request mix
 * (30 written requests and 70 snippets of descriptions).
 */
import type { SearchDoc } from "../../src/index.js";
import { seededRandom } from "../lib/stats.js";

const WRITTEN_QUERIES = [
  "send email",
  "create github issue",
  "search the web",
  "read file",
  "weather forecast",
  "list database tables",
  "get stock price",
  "translate text",
  "take screenshot",
  "query postgres",
  "slack message channel",
  "calendar event",
  "upload image",
  "run sql query",
  "git commit",
  "kubernetes pods",
  "crypto price",
  "summarize youtube video",
  "notion page",
  "browser navigate url",
  "create pull request",
  "delete file",
  "list files in directory",
  "generate image from prompt",
  "get current time",
  "convert currency",
  "search arxiv papers",
  "send slack message",
  "fetch webpage content",
  "jira ticket",
];

export function scaleCatalog(base: readonly SearchDoc[], n: number): SearchDoc[] {
  const docs: SearchDoc[] = [];
  for (let i = 0; docs.length < n; i++) {
    const d = base[i % base.length]!;
    const copy = Math.floor(i / base.length);
    docs.push(copy === 0 ? d : { ...d, id: `${d.id}~${copy}`, name: `${d.name}_${copy}` });
  }
  return docs;
}

export function makeQueries(base: readonly SearchDoc[]): string[] {
  const random = seededRandom(42);
  const derived: string[] = [];
  while (derived.length < 70) {
    const d = base[Math.floor(random() * base.length)]!;
    const words = d.description.split(/\s+/).filter((w) => /^[a-z]{3,}$/i.test(w));
    if (words.length < 4) continue;
    const count = 2 + Math.floor(random() * 3);
    const start = Math.floor(random() * (words.length - count));
    derived.push(words.slice(start, start + count).join(" "));
  }
  return [...WRITTEN_QUERIES, ...derived];
}
