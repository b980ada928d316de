/**
 * Who an `mcp --http` session belongs to, and which sessions a new one may take the place of.
 *
 * A tenant is the token that opened the session (with `gateway.auth`), else the client's
 * address. Each tenant holds at most `mcp.maxSessionsPerTenant` of the `mcp.maxSessions`
 * slots, so one client cannot take them all; when the server is full, a tenant below its share
 * takes the slot of another tenant's idle session (no request in flight), least recently used
 * first. A busy session is never evicted: its client is waiting for an answer.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "../errors.js";
import type { TokenIdentity } from "../auth/token-auth.js";
import { clientAddressKey } from "../http/client-address.js";

/**
 * Whose an `mcp --http` session is: a token's identity (one object per configured token), or
 * `address:<ip>` without auth (not a code run's tenant: see the pool's RunTenantKey).
 */
export type SessionTenantKey = TokenIdentity | string;

/** What admission needs to know of a session that is open. */
export interface SharedSession {
  readonly tenant?: SessionTenantKey;
  readonly budget: {
    /** Requests being answered now; 0 means idle. */
    inFlight(): number;
    /** When its last request arrived or ended (ms since the epoch). */
    lastUsed(): number;
  };
}

export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerTenant: number;
}

/** The token's identity, or the peer address (IPv4-mapped IPv6 written as IPv4) without auth. */
export function tenantOf(req: IncomingMessage, identity: TokenIdentity | null): SessionTenantKey {
  return identity ?? clientAddressKey(req);
}

function describeTenant(tenant: SessionTenantKey): string {
  return typeof tenant === "string" ? `The client address ${tenant.slice("address:".length)}` : "This token";
}

/**
 * Decides an initialize: undefined when a slot is free, the session to evict when the server is
 * full and another tenant has an idle one; throws TOO_MANY_SESSIONS otherwise (429 when the
 * tenant is at its own share, 503 when every other session is busy).
 * `opening` counts sessions being set up now (all tenants, and this tenant's).
 */
export function admitSession<S extends SharedSession>(
  tenant: SessionTenantKey,
  open: Iterable<S>,
  opening: { all: number; tenant: number },
  limits: SessionLimits,
): S | undefined {
  const sessions = [...open];
  const held = sessions.filter((s) => s.tenant === tenant).length + opening.tenant;
  if (held >= limits.maxSessionsPerTenant) {
    throw new HttpError(
      "TOO_MANY_SESSIONS",
      `${describeTenant(tenant)} holds ${limits.maxSessionsPerTenant} sessions, its share of this server (mcp.maxSessionsPerTenant); close one (DELETE /mcp) or let one idle out.`,
      { "retry-after": "5" },
      429,
    );
  }
  if (sessions.length + opening.all < limits.maxSessions) return undefined;
  const victim = leastRecentlyUsedIdle(sessions, tenant);
  if (victim) return victim;
  throw new HttpError(
    "TOO_MANY_SESSIONS",
    `This server holds ${limits.maxSessions} sessions at most (mcp.maxSessions) and every other tenant's is busy; try later.`,
    { "retry-after": "5" },
  );
}

/** Another tenant's session with nothing in flight, the one unused longest. */
function leastRecentlyUsedIdle<S extends SharedSession>(sessions: readonly S[], tenant: SessionTenantKey): S | undefined {
  let oldest: S | undefined;
  for (const session of sessions) {
    if (session.tenant === tenant || session.budget.inFlight() > 0) continue;
    if (!oldest || session.budget.lastUsed() < oldest.budget.lastUsed()) oldest = session;
  }
  return oldest;
}
