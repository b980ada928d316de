/**
 * Scope keys and the tenant that owns each. Learning is bounded per tenant (model.ts): how many
 * scopes and records one tenant holds, so that a tenant minting agent ids or sessions evicts its
 * own learning, never another's. The tenant is written into the key, so rows read back from the
 * store or an export are owned as they were when they were taught.
 *
 * - `agent:<agentId>`: an agent's scope where no tenant is known (the library, an
 *   unauthenticated local server); owned by NO_TENANT.
 * - `tenant:<tenant>:agent:<agentId>`: an agent's scope inside a tenant (a token's label):
 *   two tenants that name the same agent never share what their sessions taught.
 * - `token:<tenant>`: a tenant's scope (scope "token").
 * - `shared`: everyone's; owned by the pseudo-tenant "shared".
 */

/** What the scopes of runs with no tenant count against: only the totals bound them. */
export const NO_TENANT = "";

/** The key of the scope everyone shares. */
export const SHARED_SCOPE = "shared";

export function agentScopeKey(agentId: string, tenant: string | undefined): string {
  return tenant === undefined ? `agent:${agentId}` : `tenant:${encodeURIComponent(tenant)}:agent:${agentId}`;
}

export function tokenScopeKey(tenant: string): string {
  return `token:${tenant}`;
}

/** The tenant a scope's records count against. */
export function tenantOfScope(key: string): string {
  if (key === SHARED_SCOPE) return SHARED_SCOPE;
  if (key.startsWith("token:")) return `token:${key.slice("token:".length)}`;
  if (key.startsWith("tenant:")) {
    const end = key.indexOf(":", "tenant:".length);
    return `token:${decodeURIComponent(key.slice("tenant:".length, end === -1 ? undefined : end))}`;
  }
  return NO_TENANT;
}
