/**
 * What the catalog says of its sources (catalog.ts, which re-exports these): apart from it, which
 * loads ajv, so that the admin API's wire types (src/admin/admin-wire-types.ts), which the web
 * console compiles without Node's types, can carry them.
 */
import type { FailureEvent } from "../failure-event.js";
import type { CatalogSource } from "./sources.js";

export interface SourceStatus {
  source: CatalogSource["source"];
  toolset: string;
  ok: boolean;
  tools: number;
  error?: string;
}

/** Why the last rebuild after a source change was refused (the catalog before it is still served). */
export type RebuildError = Pick<FailureEvent, "code" | "message" | "time">;
