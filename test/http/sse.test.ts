/**
 * Server-Sent Events answers on a real loopback server: keep-alive comments while nothing else
 * is written, and a client that stops reading is disconnected once its unread bytes pass the cap.
 */
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SseResponse } from "../../src/http/sse.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** `closed` resolves when the response closes, to whether it had been ended (false: cut). */
async function serve(handle: (sse: SseResponse, closed: Promise<boolean>) => void, maxUnreadBytes: number, keepAliveMs: number): Promise<string> {
  server = createServer((_req, res) => {
    const sse = new SseResponse(res, maxUnreadBytes, keepAliveMs);
    const closed = new Promise<boolean>((resolve) => res.once("close", () => resolve(res.writableEnded)));
    sse.open();
    handle(sse, closed);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe("SseResponse", () => {
  it("sends the event-stream headers at once and a keep-alive comment while the stream waits", async () => {
    const url = await serve((sse) => sse.write("data: first\n\n"), 1024 * 1024, 20);
    const res = await fetch(url);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes(": keep-alive\n\n")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.startsWith("data: first\n\n")).toBe(true);
    await reader.cancel();
  });

  it("disconnects a client that leaves more than maxUnreadBytes unread", async () => {
    let disconnected!: Promise<boolean>;
    const url = await serve(
      (sse, closed) => {
        disconnected = closed;
        // Far more than the loopback socket's buffers take while the client reads nothing.
        for (let i = 0; i < 64; i += 1) sse.write(`data: ${"x".repeat(512 * 1024)}\n\n`);
      },
      1024 * 1024,
      60_000,
    );
    const response = await new Promise<IncomingMessage>((resolve) => request(url, resolve).end());
    response.pause();
    // The handler never ends the stream: only the cap closes it.
    expect(await disconnected).toBe(false);
    response.destroy();
  });
});
