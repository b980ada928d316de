/**
 * The `policy` option, written once as its schema: checked with ajv, so a typo fails at start
 * instead of silently admitting tools, and PolicyConfig and PolicyRule derived from it (types.ts).
 */
import { compileOptions } from "../validation/ajv.js";
import { arrayOf, object, recordOf, string } from "../validation/typed-schema.js";
import { RENAMED_POLICY_KEYS, refuseRenamedKeys } from "../validation/renamed-keys.js";
import type { PolicyConfig } from "./types.js";

const globs = arrayOf(string({ minLength: 1 }));

/** One layer's rule (policy.ts): an `allow` list admits only what it matches; a `deny` removes the tool (deny wins). */
export const policyRuleSchema = object({
  /** Globs of tool ids or names: when given, only the tools one matches are admitted. */
  allow: globs,
  /** Globs of tool ids or names that are never admitted. */
  deny: globs,
});

const layer = recordOf(policyRuleSchema);

/** Allow/deny globs per layer (global, then agent → profile → workspace → session → channel, each layer intersecting), and owner-only globs. */
export const policySchema = object({
  /** The global rule's allow globs: when given, only the tools one matches are admitted. */
  allow: globs,
  /** The global rule's deny globs: the tools one matches are never admitted. */
  deny: globs,
  /** Globs of tools that only an owner (`owner: true` in the run context) may see or call. */
  ownerOnly: globs,
  agents: layer,
  profiles: layer,
  /** Keyed by the run's `workspace`. */
  workspaces: layer,
  sessions: layer,
  channels: layer,
});

const check = compileOptions("policy", policySchema);

export function parsePolicy(value: unknown): PolicyConfig {
  if (value === undefined) return {};
  refuseRenamedKeys(value, "policy", RENAMED_POLICY_KEYS);
  return check(value, "policy");
}
