/** ajv check of the `policy` option, so a typo fails at start instead of silently admitting tools. */
import { compileOptions } from "../validation/ajv.js";
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
    sandboxes: layer,
    sessions: layer,
    channels: layer,
  },
};

const check = compileOptions<PolicyConfig>(schema);

export function parsePolicy(value: unknown): PolicyConfig {
  return value === undefined ? {} : check(value, "policy");
}
