/**
 * The HTTP skeleton both faces run on, on a real loopback server: errors answered as JSON in the
 * face's shape, a stop that lets what is in flight finish, cuts what still runs at the drain's
 * end (answered CLOSING, never a reset), and waits only for the responses it is told to.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "../../src/errors.js";
import { closingError } from "../../src/http/drain.js";
import { HttpSkeleton, type HttpSkeletonOptions } from "../../src/http/http-skeleton.js";
import { sendJson } from "../../src/http/json-http.js";

let skeleton: HttpSkeleton | undefined;
afterEach(async () => {
  await skeleton?.close({ cut: () => {} });
  skeleton = undefined;
});

type Route = (req: IncomingMessage, res: ServerResponse, http: HttpSkeleton) => Promise<void>;

async function serve(route: Route, drainWaitsFor: HttpSkeletonOptions["drainWaitsFor"]): Promise<string> {
  const http = new HttpSkeleton({
    name: "test",
    route: (req, res) => route(req, res, http),
    errorBody: (code, message) => ({ failed: { code, message } }),
    drainWaitsFor,
  });
  skeleton = http;
  return `http://127.0.0.1:${await http.listen(0, "127.0.0.1")}`;
}

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("HttpSkeleton", () => {
  it("answers a thrown HttpError with its status and headers in the face's shape, anything else 500 without its detail", async () => {
    const url = await serve(async (req) => {
      if (req.url === "/refused") throw new HttpError("TOO_MANY_REQUESTS", "slow down", { "retry-after": "1" });
      throw new Error("secret path /etc/x");
    }, "every");
    const refused = await fetch(`${url}/refused`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ failed: { code: "TOO_MANY_REQUESTS", message: "slow down" } });
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const broken = await fetch(`${url}/broken`);
      expect(broken.status).toBe(500);
      expect(await broken.json()).toEqual({ failed: { code: "INTERNAL", message: "internal error" } });
      expect(stderr).toHaveBeenCalledWith("test: internal error on GET /broken: secret path /etc/x");
    } finally {
      stderr.mockRestore();
    }
  });

  it("lets a request in flight at close finish and be answered, then stops listening", async () => {
    const started = gate();
    const release = gate();
    const url = await serve(async (_req, res) => {
      started.open();
      await release.opened;
      sendJson(res, 200, { done: true });
    }, "every");
    const answer = fetch(url);
    await started.opened;
    const cut: string[] = [];
    const closed = skeleton!.close({ drainMs: 60_000, cut: () => cut.push("cut") });
    expect(skeleton!.draining).toBe(true);
    release.open();
    const res = await answer;
    expect(await res.json()).toEqual({ done: true });
    // Answered while draining: its connection is not kept for another request.
    expect(res.headers.get("connection")).toBe("close");
    await closed;
    expect(cut).toEqual([]);
    await expect(fetch(url)).rejects.toThrow();
  });

  it("at the drain's end cuts what still runs, whose CLOSING answer goes out before the connections close", async () => {
    const started = gate();
    const stop = new AbortController();
    const url = await serve(async () => {
      started.open();
      await new Promise((resolve) => stop.signal.addEventListener("abort", resolve));
      throw stop.signal.reason;
    }, "every");
    const answer = fetch(url);
    await started.opened;
    await skeleton!.close({ drainMs: 0, cut: () => stop.abort(closingError("still running at the drain's end.")) });
    const res = await answer;
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ failed: { code: "CLOSING", message: "The server is shutting down: still running at the drain's end." } });
  });

  it("with drainWaitsFor 'tracked', waits for the tracked responses and the face's busy work, not for an open stream", async () => {
    const called = gate();
    const release = gate();
    const url = await serve(async (req, res, http) => {
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": open\n\n");
        return;
      }
      http.track(res);
      called.open();
      await release.opened;
      sendJson(res, 200, { done: true });
    }, "tracked");
    const stream = await fetch(`${url}/stream`);
    const call = fetch(`${url}/call`);
    await called.opened;
    let busy = true;
    const cut: string[] = [];
    const closed = skeleton!.close({ drainMs: 60_000, busy: () => busy, cut: () => cut.push("cut") });
    let stopped = false;
    void closed.then(() => (stopped = true));
    release.open();
    expect(await (await call).json()).toEqual({ done: true });
    expect(stopped).toBe(false);
    busy = false;
    await closed;
    expect(cut).toEqual([]);
    // The stream did not hold the drain: it was closed with the connections.
    await expect(stream.text()).rejects.toThrow();
  });
});
