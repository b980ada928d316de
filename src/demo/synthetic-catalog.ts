/**
 * A deterministic generated catalog of realistic tools (multi-sentence descriptions, typed
 * parameters with descriptions), for `npm start`, end-to-end tests and benchmarks when no
 * external data is at hand. The same size always gives the same tools.
 */
import type { ToolDefinition } from "../catalog/types.js";

const DOMAINS: ReadonlyArray<{ area: string; objects: readonly string[]; context: string }> = [
  { area: "crm", objects: ["contact", "lead", "deal", "account", "pipeline_stage"], context: "in the customer relationship manager" },
  { area: "billing", objects: ["invoice", "payment", "refund", "subscription", "coupon"], context: "in the billing system" },
  { area: "calendar", objects: ["event", "meeting_room", "reminder", "availability_slot", "attendee"], context: "on the team calendar" },
  { area: "storage", objects: ["bucket", "file", "folder", "share_link", "snapshot"], context: "in cloud object storage" },
  { area: "analytics", objects: ["dashboard", "report", "metric", "funnel", "cohort"], context: "in the product analytics workspace" },
  { area: "support", objects: ["ticket", "macro", "customer_note", "satisfaction_survey", "escalation"], context: "in the support desk" },
  { area: "devops", objects: ["deployment", "pipeline_run", "build_artifact", "feature_flag", "incident"], context: "on the delivery platform" },
  { area: "hr", objects: ["employee", "time_off_request", "payroll_run", "job_posting", "candidate"], context: "in the people system" },
  { area: "inventory", objects: ["product", "warehouse", "stock_level", "purchase_order", "supplier"], context: "in the inventory ledger" },
  { area: "marketing", objects: ["campaign", "email_template", "audience_segment", "landing_page", "ab_test"], context: "in the marketing suite" },
  { area: "geo", objects: ["route", "geocode", "place", "traffic_report", "weather_forecast"], context: "using the mapping service" },
  { area: "docs", objects: ["document", "comment", "revision", "template", "signature_request"], context: "in the document workspace" },
];

const VERBS: ReadonlyArray<{ verb: string; phrase: string; effect: string }> = [
  { verb: "create", phrase: "Create a new", effect: "Returns the created record with its generated id." },
  { verb: "get", phrase: "Fetch one", effect: "Returns the full record, or an error when the id is unknown." },
  { verb: "list", phrase: "List every", effect: "Results are paginated; pass the cursor from the previous page to continue." },
  { verb: "update", phrase: "Update an existing", effect: "Only the fields you pass are changed; the rest stay as they are." },
  { verb: "delete", phrase: "Permanently delete a", effect: "This cannot be undone; the record is removed for every user." },
  { verb: "search", phrase: "Search for a", effect: "Matches on names and free text; results are ranked by relevance." },
  { verb: "export", phrase: "Export a", effect: "Produces a CSV or JSON download link that stays valid for one hour." },
  { verb: "archive", phrase: "Archive a", effect: "Archived records are hidden from lists but can be restored later." },
];

const EXTRA_PARAMS: ReadonlyArray<{ name: string; schema: Record<string, unknown> }> = [
  { name: "limit", schema: { type: "integer", minimum: 1, maximum: 100, description: "Maximum number of results to return." } },
  { name: "cursor", schema: { type: "string", description: "Pagination cursor from a previous response." } },
  { name: "notify", schema: { type: "boolean", description: "Send a notification to the people involved." } },
  { name: "tags", schema: { type: "array", items: { type: "string" }, description: "Labels to attach, used for filtering later." } },
  { name: "region", schema: { type: "string", enum: ["eu", "us", "apac"], description: "Data residency region to operate in." } },
  { name: "dry_run", schema: { type: "boolean", description: "Validate the request without applying any change." } },
];

function words(identifier: string): string {
  return identifier.replace(/_/g, " ");
}

/** A small seeded PRNG (mulberry32) so generated catalogs (and benchmark queries) are reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticTool {
  definition: ToolDefinition;
  /** A request a user might make that this tool answers. */
  request: string;
}

/** `count` distinct tools; past the 480 base combinations, names get a numbered variant suffix. */
export function syntheticTools(count: number, seed = 7): SyntheticTool[] {
  const rand = seededRandom(seed);
  const tools: SyntheticTool[] = [];
  for (let i = 0; tools.length < count; i += 1) {
    const domain = DOMAINS[i % DOMAINS.length]!;
    const object = domain.objects[Math.floor(i / DOMAINS.length) % domain.objects.length]!;
    const verb = VERBS[Math.floor(i / (DOMAINS.length * 5)) % VERBS.length]!;
    const round = Math.floor(i / (DOMAINS.length * 5 * VERBS.length));
    const name = `${domain.area}_${verb.verb}_${object}${round > 0 ? `_v${round + 1}` : ""}`;
    tools.push(makeTool(name, domain, object, verb, round, rand));
  }
  return tools;
}

function makeTool(
  name: string,
  domain: (typeof DOMAINS)[number],
  object: string,
  verb: (typeof VERBS)[number],
  round: number,
  rand: () => number,
): SyntheticTool {
  const idParam = `${object}_id`;
  const properties: Record<string, unknown> = {
    [idParam]: { type: "string", description: `Identifier of the ${words(object)} ${domain.context}.` },
    workspace: { type: "string", description: `Workspace or tenant that owns the ${words(object)}.` },
  };
  const extras = EXTRA_PARAMS.filter(() => rand() < 0.45).slice(0, 3);
  for (const extra of extras) properties[extra.name] = extra.schema;
  const variant = round > 0 ? ` This is revision ${round + 1} of the endpoint, kept for older integrations.` : "";
  const definition: ToolDefinition = {
    name,
    description: `${verb.phrase} ${words(object)} ${domain.context}. ${verb.effect} Requires the ${domain.area} scope on the caller's token.${variant}`,
    inputSchema: { type: "object", properties, required: [idParam], additionalProperties: false },
    execute(args) {
      return { tool: name, ok: true, [idParam]: args[idParam], echoed: Object.keys(args).length };
    },
  };
  return { definition, request: `${verb.verb} the ${words(object)} ${domain.context}` };
}
