/**
 * What a `gateway.auth.tokens` entry lets its holder be, as a schema (token-auth.ts, which reads
 * the tokens, re-exports these). Apart from it, which needs `node:crypto`: the admin API's wire
 * types (src/admin/admin-wire-types.ts), which the web console compiles without Node's types,
 * list the tokens by this identity.
 */
import { TOOL_SEARCH_MODES } from "../settings/modes.js";
import { arrayOf, boolean, object, oneOf, string, type TypeOf } from "../validation/typed-schema.js";

/** An explicit tenant name: ":" is left out, so no name is ever a derived one. */
export const TENANT_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";

const text = string({ minLength: 1, maxLength: 256 });

/** What a token lets its holder be: the identity fields of a `gateway.auth.tokens` entry, as the config schema checks them. */
export const tokenIdentitySchema = object({
  /** The agent every run of this token is; a body may not name another. */
  agentId: text,
  /** Only a token with `owner: true` may run owner-only tools. */
  owner: boolean(),
  /** The channels a run may name; with exactly one, it is the default. */
  channels: arrayOf(text, { minItems: 1, uniqueItems: true }),
  /** The modes a run may ask for. */
  modes: arrayOf(oneOf(TOOL_SEARCH_MODES), { minItems: 1, uniqueItems: true }),
  /**
   * The tenant this token's runs belong to (RunContext.tenant): what learning and the fair shares
   * are keyed by. Tokens that name the same tenant share them (a token rotated under the same
   * name keeps its tenant's learning). Default: a name derived from the token itself (tokenTenant).
   */
  tenant: string({ pattern: TENANT_NAME_PATTERN }),
});

/** What a token lets its holder be (tokenIdentitySchema documents each field). */
export type TokenIdentity = TypeOf<typeof tokenIdentitySchema>;
