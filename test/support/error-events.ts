/** The failures published on "toolsearch:error" during each test of the file that calls this (subscribed before each, cleared after). */
import diagnostics from "node:diagnostics_channel";
import { afterEach, beforeEach } from "vitest";
import { ERROR_CHANNEL, type FailureEvent } from "../../src/error-channel.js";

export function publishedFailures(): FailureEvent[] {
  const published: FailureEvent[] = [];
  const listener = (message: unknown) => published.push(message as FailureEvent);
  beforeEach(() => diagnostics.subscribe(ERROR_CHANNEL, listener));
  afterEach(() => {
    diagnostics.unsubscribe(ERROR_CHANNEL, listener);
    published.length = 0;
  });
  return published;
}
