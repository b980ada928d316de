/** Error text for the operator: fetch hides the useful part in `cause`. No SDK needed, so a source can word a failure to load it. */
import { ToolSearchError } from "../errors.js";

/** `message (CAUSE_CODE: cause message)`. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = causeCode(error);
  if (cause instanceof Error && !error.message.includes(cause.message)) {
    return `${error.message} (${code ? `${code}: ` : ""}${cause.message})`;
  }
  return error.message;
}

/** The errno code of an error's cause (ECONNREFUSED, …), when it has one. */
export function causeCode(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (typeof cause !== "object" || cause === null || cause instanceof ToolSearchError) return undefined; // a taxonomy code is not an errno code
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
