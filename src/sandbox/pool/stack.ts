/**
 * The stack a failed body reports: only frames in the body's own source (`code.js`, line numbers
 * counted from the body's first line). Bootstrap, realm and Node-internal frames say nothing the
 * model can act on and describe the sandbox's insides, so they are dropped.
 */
const BODY_FRAME = /^\s*at (?:async )?(?:.*\()?code\.js:\d+:\d+\)?$/;
const MAX_FRAMES = 10;
const MAX_LINE = 300;

export function trimBodyStack(stack: string): string | undefined {
  const frames: string[] = [];
  for (const line of stack.split("\n")) {
    if (!BODY_FRAME.test(line)) continue;
    frames.push(line.trim().slice(0, MAX_LINE));
    if (frames.length === MAX_FRAMES) break;
  }
  return frames.length > 0 ? frames.join("\n") : undefined;
}
