/**
 * Telemetry of one dispatched unit of work (a tool call, a code run), in one place: the span is
 * opened before the work, and once it settles the span gets its attributes and outcome, is
 * ended, and the run recorder's entry is written. Every branch of a caller goes through here, so
 * no branch can forget to end its span or to record.
 */
import type { Attributes, Span } from "@opentelemetry/api";
import { toErrorPayload } from "../errors.js";
import { outcomeAttributes } from "./otel.js";

export interface DispatchedWork<O extends { span: Span }, T> {
  /** Opens the work's span (and whatever the work needs from it, such as its context). */
  open(): O;
  run(opened: O): Promise<T>;
  /** The failure code of a settled value (undefined: ok), and attributes it adds to the span. */
  settle(value: T): { code: string | undefined; attributes?: Attributes };
  /** Writes the run recorder's entry for a settled value. */
  record(value: T): void;
}

/** Runs `work` with its telemetry. A throw ends the span with the error's code and is rethrown, unrecorded: the caller answers it. */
export async function traceDispatched<O extends { span: Span }, T>(work: DispatchedWork<O, T>): Promise<T> {
  const opened = work.open();
  let value: T;
  try {
    value = await work.run(opened);
  } catch (error) {
    outcomeAttributes(opened.span, toErrorPayload(error, "INTERNAL").code);
    opened.span.end();
    throw error;
  }
  const { code, attributes } = work.settle(value);
  if (attributes) opened.span.setAttributes(attributes);
  outcomeAttributes(opened.span, code);
  opened.span.end();
  work.record(value);
  return value;
}
