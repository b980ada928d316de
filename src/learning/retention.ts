/**
 * Which learned rows are kept: those of tools in the catalog (or of a source that is down now,
 * whose tools are not listed while it is) and, when the tenants are known (a gateway's tokens),
 * those of tenants that still exist. Rows of runs without a tenant and of the shared scope stay.
 * The same rule at load, at import and in a compaction, so a row dropped once never comes back.
 */
import { NO_TENANT, SHARED_SCOPE, tenantOfScope } from "./scope-keys.js";
import type { IdFilter, LearnedRow } from "./model.js";

export interface Retention {
  tools: IdFilter;
  /** The tenants that exist (RunContext.tenant values); undefined: any. */
  tenants?: ReadonlySet<string>;
}

/** The tenant owning a scope as RunContext.tenant names it; undefined for no tenant and the shared scope. */
function scopeTenant(scope: string): string | undefined {
  const owner = tenantOfScope(scope);
  if (owner === NO_TENANT || owner === SHARED_SCOPE) return undefined;
  return owner.slice("token:".length);
}

export function keepsRow(retention: Retention): (row: LearnedRow) => boolean {
  const { tools, tenants } = retention;
  const scopes = new Map<string, boolean>();
  const keepsScope = (scope: string): boolean => {
    let kept = scopes.get(scope);
    if (kept === undefined) {
      const tenant = scopeTenant(scope);
      kept = tenant === undefined || tenants === undefined || tenants.has(tenant);
      scopes.set(scope, kept);
    }
    return kept;
  };
  return (row) => tools.has(row.tool) && keepsScope(row.scope);
}

/** Ids, plus prefixes of sources that are down, as an IdFilter. */
export function idFilter(ids: ReadonlySet<string>, prefixes: readonly string[]): IdFilter {
  return prefixes.length === 0 ? ids : { has: (id: string) => ids.has(id) || prefixes.some((p) => id.startsWith(p)) };
}
