import type { TypeOf } from "../validation/typed-schema.js";
import type { policyRuleSchema, policySchema } from "./policy-schema.js";

/** Allow/deny globs per layer; see docs/architecture.md (fail-closed policy). policySchema (policy-schema.ts) documents each key. */
export type PolicyConfig = TypeOf<typeof policySchema>;

/** One layer's allow/deny globs: policyRuleSchema (policy-schema.ts) documents each. */
export type PolicyRule = TypeOf<typeof policyRuleSchema>;

/** The parts of a run context that policy looks at. */
export interface PolicySubject {
  agentId?: string;
  profile?: string;
  workspace?: string;
  sessionId?: string;
  channel?: string;
  owner?: boolean;
}

/** The fields of a tool that policy looks at. */
export interface PolicyTool {
  id: string;
  name: string;
  ownerOnly?: boolean;
}
