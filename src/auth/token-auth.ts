/**
 * Gateway identity from bearer tokens (`gateway.auth.tokens`). Each token carries who its
 * holder is (agentId, owner) and what it may ask for (channels, modes); a run's identity comes
 * from the token, and a request body may only narrow it, never widen it.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { ConfigInvalidError, HttpError } from "../errors.js";
import { definedProps } from "../defined.js";
import type { TokenIdentity } from "./token-identity.js";

/** Shorter tokens are guessable; the config schema holds the same bound. */
export const MIN_TOKEN_LENGTH = 16;

export { TENANT_NAME_PATTERN, tokenIdentitySchema, type TokenIdentity } from "./token-identity.js";

/** One resolved token (a `tokenEnv` already read from the environment). */
export interface AuthToken extends TokenIdentity {
  token: string;
}

export interface AuthSettings {
  tokens: AuthToken[];
}

/** The identity fields of a run request, as the body gave them. */
export interface RunIdentity {
  agentId?: string;
  owner?: boolean;
  channel?: string;
  mode?: ToolSearchMode;
}

/** A body field asks for more than its token allows: answered 403. */
export class ForbiddenFieldError extends HttpError {
  constructor(
    readonly field: keyof RunIdentity,
    message: string,
  ) {
    super("FORBIDDEN", `${field}: ${message}`);
  }
}

/** Rejects short and repeated tokens; messages name the entry, never the token. */
export function checkAuthTokens(tokens: readonly AuthToken[], where = "gateway.auth.tokens"): void {
  if (tokens.length === 0) throw new ConfigInvalidError(`${where}: list at least one token`);
  const seen = new Map<string, number>();
  for (const [i, entry] of tokens.entries()) {
    if (typeof entry.token !== "string" || entry.token.length < MIN_TOKEN_LENGTH) {
      throw new ConfigInvalidError(`${where}.${i}: the token must be at least ${MIN_TOKEN_LENGTH} characters`);
    }
    const first = seen.get(entry.token);
    if (first !== undefined) throw new ConfigInvalidError(`${where}.${i}: the same token as ${where}.${first}; each token must be different`);
    seen.set(entry.token, i);
  }
}

interface HashedToken {
  digest: Buffer;
  identity: TokenIdentity;
}

const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Each matched identity's tenant (tenantOfToken): a stable name for fair shares and learning that never holds the secret. */
const tokenLabels = new WeakMap<TokenIdentity, string>();

/**
 * A token's tenant: its explicit `tenant`, else `token:` and 16 characters of a keyed hash of the
 * token. Never its position in the list: reordering, adding or revoking tokens moves nobody's
 * learning or shares to another token, and a new token never inherits a revoked one's.
 */
export function tenantOfToken(entry: AuthToken): string {
  if (entry.tenant !== undefined) return entry.tenant;
  return `token:${createHmac("sha256", "toolsearch tenant").update(entry.token, "utf8").digest("base64url").slice(0, 16)}`;
}

/** The tenant of a token's runs (RunContext.tenant), so every session of one token shares one share. */
export function tokenTenant(identity: TokenIdentity): string {
  return tokenLabels.get(identity) ?? "token:unknown";
}

/**
 * The configured tokens, kept as SHA-256 digests. Hashing both sides gives equal-length
 * buffers for timingSafeEqual whatever the presented length, and every entry is compared
 * on every request so the time taken does not tell which entry (if any) matched.
 */
export class TokenTable {
  private readonly entries: readonly HashedToken[];

  constructor(tokens: readonly AuthToken[]) {
    checkAuthTokens(tokens);
    this.entries = tokens.map((entry) => {
      const { token, ...identity } = entry;
      tokenLabels.set(identity, tenantOfToken(entry));
      return { digest: sha256(token), identity };
    });
  }

  /** The identity of the token an `Authorization: Bearer …` header carries, or undefined. */
  match(authorization: string | undefined): TokenIdentity | undefined {
    const presented = sha256(bearerToken(authorization) ?? "");
    let found: TokenIdentity | undefined;
    for (const entry of this.entries) {
      const equal = timingSafeEqual(presented, entry.digest);
      found = equal ? entry.identity : found;
    }
    return found;
  }
}

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * The run's identity: the token's, with the body allowed only to narrow it (owner: false,
 * one of the token's channels or modes). A field that asks for more throws ForbiddenFieldError.
 * `defaultMode` is the gateway's mode, used when the body names none and the token allows it.
 */
export function identityFromToken(body: RunIdentity, token: TokenIdentity, defaultMode: ToolSearchMode): RunIdentity {
  return {
    ...agentIdFor(body, token),
    owner: ownerFor(body, token),
    ...channelFor(body, token),
    ...modeFor(body, token, defaultMode),
  };
}

/**
 * The run's identity without `gateway.auth`: the body's, except that it may not make itself an
 * owner unless the operator said so (`gateway.trustLoopbackIdentity: true`). `owner` is the one
 * identity field that grants: every policy layer an agent, channel or profile selects can only
 * take tools away, so naming one narrows what the run sees, never widens it. Refused, not
 * dropped: a caller that asked for owner rights learns it did not get them, and why.
 */
export function loopbackIdentity<T extends RunIdentity>(body: T, trusted: boolean): T {
  if (body.owner === true && !trusted) {
    throw new ForbiddenFieldError(
      "owner",
      "this gateway has no gateway.auth, and a request body is not trusted with owner rights; give the caller a token with owner: true (gateway.auth.tokens), or set gateway.trustLoopbackIdentity: true if every local process may act as the owner",
    );
  }
  return body;
}

/** The policy subjects a token may run as: one per channel it may name (or one without a channel). */
export function tokenSubjects(token: TokenIdentity): Array<{ agentId?: string; owner: boolean; channel?: string }> {
  const base = { ...definedProps({ agentId: token.agentId }), owner: token.owner === true };
  return token.channels ? token.channels.map((channel) => ({ ...base, channel })) : [base];
}

function agentIdFor(body: RunIdentity, token: TokenIdentity): Pick<RunIdentity, "agentId"> {
  if (token.agentId === undefined) return definedProps({ agentId: body.agentId });
  if (body.agentId !== undefined && body.agentId !== token.agentId)
    throw new ForbiddenFieldError("agentId", `this token runs as agent "${token.agentId}", not "${body.agentId}"`);
  return { agentId: token.agentId };
}

function ownerFor(body: RunIdentity, token: TokenIdentity): boolean {
  if (body.owner === true && token.owner !== true) throw new ForbiddenFieldError("owner", "this token is not an owner token; owner-only tools need one");
  return body.owner ?? token.owner === true;
}

/** A token listing several channels needs the body to pick one: a run without a channel would skip channel rules. */
function channelFor(body: RunIdentity, token: TokenIdentity): Pick<RunIdentity, "channel"> {
  const allowed = token.channels;
  if (allowed === undefined) return definedProps({ channel: body.channel });
  if (body.channel === undefined) {
    if (allowed.length === 1) return { channel: allowed[0]! };
    throw new ForbiddenFieldError("channel", `this token needs a channel, one of ${list(allowed)}`);
  }
  if (!allowed.includes(body.channel)) throw new ForbiddenFieldError("channel", `this token may use ${list(allowed)}, not "${body.channel}"`);
  return { channel: body.channel };
}

function modeFor(body: RunIdentity, token: TokenIdentity, defaultMode: ToolSearchMode): Pick<RunIdentity, "mode"> {
  const allowed = token.modes;
  if (allowed === undefined) return definedProps({ mode: body.mode });
  if (body.mode === undefined) return { mode: allowed.includes(defaultMode) ? defaultMode : allowed[0]! };
  if (!allowed.includes(body.mode)) throw new ForbiddenFieldError("mode", `this token may use ${list(allowed)}, not "${body.mode}"`);
  return { mode: body.mode };
}

const list = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(", ");

/** 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x) and "localhost": the hosts an unauthenticated gateway may bind. */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || /^(0{0,4}:){7}0{0,3}1$/.test(bare) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(bare);
  return false;
}

/**
 * The 401 for a request without a matching token. A caller who sent one is told it was not
 * accepted (a typo, an old token), not that a token is needed; nothing says how close it was.
 */
export function unauthorized(authorization: string | undefined, server: "gateway" | "server"): HttpError {
  const headers = { "www-authenticate": "Bearer" };
  if (authorization === undefined || authorization.trim() === "")
    return new HttpError("UNAUTHORIZED", `This ${server} needs a token: send Authorization: Bearer <token>.`, headers);
  if (bearerToken(authorization) === undefined) return new HttpError("UNAUTHORIZED", 'The Authorization header is not "Bearer <token>".', headers);
  return new HttpError("UNAUTHORIZED", "The bearer token was not accepted (it matches none of gateway.auth.tokens).", headers);
}
