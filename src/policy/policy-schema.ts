/** ajv check of the `policy` option, so a typo fails at start instead of silently admitting tools. */
import { compileOptions } from "../validation/ajv.js";
import { RENAMED_POLICY_KEYS, refuseRenamedKeys } from "../validation/renamed-keys.js";
import type { PolicyConfig } from "./types.js";

const globs = { type: "array", items: { type: "string", minLength: 1 } };
const rule = { type: "object", additionalProperties: false, properties: { allow: globs, deny: globs } };
const layer = { type: "object", additionalProperties: rule };

const schema = {
  type: "object",
  additionalProperties: false,
  properties: {
    allow: globs,
    deny: globs,
    ownerOnly: globs,
    agents: layer,
    profiles: layer,
    workspaces: layer,
    sessions: layer,
    channels: layer,
  },
};

const check = compileOptions<PolicyConfig>("policy", schema);

export function parsePolicy(value: unknown): PolicyConfig {
  if (value === undefined) return {};
  refuseRenamedKeys(value, "policy", RENAMED_POLICY_KEYS);
  return check(value, "policy");
}
