/** The little HTTP plumbing the gateway and the scripted provider share: capped bodies, JSON answers. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError } from "../errors.js";

class BodyTooLargeError extends HttpError {
  constructor(readonly maxBytes: number) {
    super("BODY_TOO_LARGE", `Request body is over the ${maxBytes}-byte limit.`);
  }
}

/** The whole request body; rejects with BodyTooLargeError as soon as it (or its declared length) passes maxBytes. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) throw new BodyTooLargeError(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new BodyTooLargeError(maxBytes);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The body as JSON; over maxBytes is BODY_TOO_LARGE (413), not JSON is `notJson` (400). */
export async function readJson(req: IncomingMessage, maxBytes: number, notJson: "BAD_REQUEST" | "PARSE_ERROR"): Promise<unknown> {
  const body = await readBody(req, maxBytes);
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new HttpError(notJson, `body: not valid JSON (${(error as Error).message})`);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
