/**
 * The launch ladder of bench/code-mode/floors.ts: `node -e 0`, then the pool's launch plan
 * rebuilt one layer at a time, innermost first, ending with exactly the plan the probe chose.
 * Measures the sandbox launch ladder on purpose: imports src/sandbox/pool/ directly.
 */
import type { LaunchPlan } from "../../src/sandbox/pool/launch.js";

export interface LadderStep {
  name: string;
  command: string;
  args: string[];
}

/**
 * The plan's argv split at each wrapper (an absolute path starts one: launch.ts finds each wrapper
 * on disk), so that the ladder adds them innermost first: [setpriv …] [prlimit …] [unshare …] [node].
 */
function wrapperSegments(plan: LaunchPlan): string[][] {
  const words = [plan.command, ...plan.prefix];
  const segments: string[][] = [];
  for (const word of words) {
    if (word.startsWith("/") || segments.length === 0) segments.push([word]);
    else segments[segments.length - 1]!.push(word);
  }
  return segments.slice(0, -1); // the last one is node itself
}

function wrapperName(segment: string[]): string {
  return segment[0]!.split("/").pop()!;
}

export function ladder(plan: LaunchPlan, node: string): LadderStep[] {
  const [permission, ...otherFlags] = plan.nodeFlags;
  const steps: LadderStep[] = [{ name: "node -e 0", command: node, args: ["-e", "0"] }];
  if (permission !== undefined) steps.push({ name: `+ ${permission}`, command: node, args: [permission, "-e", "0"] });
  if (otherFlags.length > 0) steps.push({ name: "+ the other node flags", command: node, args: [...plan.nodeFlags, "-e", "0"] });
  const segments = wrapperSegments(plan);
  for (let i = segments.length - 1; i >= 0; i--) {
    const words = [...segments.slice(i).flat(), node, ...plan.nodeFlags, "-e", "0"];
    steps.push({ name: `+ ${wrapperName(segments[i]!)}`, command: words[0]!, args: words.slice(1) });
  }
  return steps;
}
