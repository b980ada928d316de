import { afterEach, describe, expect, it } from "vitest";
import { workerStops, type WorkerStops } from "../../src/cli/cluster.js";

/** What a cluster worker's process receives, emitted as Node emits it (synchronously, in order). */
const stopMessage = () => process.emit("message", { type: "toolsearch:stop" }, undefined);

describe("workerStops", () => {
  let stops: WorkerStops | undefined;
  afterEach(() => stops?.release());

  it("two stop messages from one read are the first and the second: the drain is ended, not left to its timeout", async () => {
    stops = workerStops();
    // Both are emitted before any promise callback runs, as when both arrive in one IPC read.
    stopMessage();
    stopMessage();
    await stops.first;
    expect(stops.signal.aborted).toBe(true);
  });

  it("one stop begins the drain without ending it; a later SIGINT ends it", async () => {
    stops = workerStops();
    stopMessage();
    await stops.first;
    expect(stops.signal.aborted).toBe(false);
    process.emit("SIGINT", "SIGINT");
    expect(stops.signal.aborted).toBe(true);
  });

  it("a SIGINT before any stop is left to the primary (a terminal's Ctrl-C reaches the whole group)", async () => {
    stops = workerStops();
    process.emit("SIGINT", "SIGINT");
    const first = await Promise.race([stops.first.then(() => "stopped"), new Promise((resolve) => setImmediate(() => resolve("running")))]);
    expect(first).toBe("running");
    expect(stops.signal.aborted).toBe(false);
  });

  it("after release, stops reach it no more", () => {
    const listening = process.listenerCount("message");
    stops = workerStops();
    stops.release();
    stopMessage();
    stopMessage();
    expect(stops.signal.aborted).toBe(false);
    expect(process.listenerCount("message")).toBe(listening);
  });
});
