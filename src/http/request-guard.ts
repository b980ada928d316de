/**
 * The checks every request to `toolsearch serve` and `toolsearch mcp --http` passes before its
 * route, its token or its body is looked at: one rule set, in one place, for both servers.
 *
 * A loopback port is not private: any web page the user opens can send it requests. A
 * cross-origin `fetch` with a `text/plain` body needs no CORS preflight, so the page cannot read
 * the answer but the request runs; a page on a DNS name the attacker rebinds to 127.0.0.1 is
 * even same-origin and reads everything. So, without `gateway.auth`:
 *
 * - **Host** must be a loopback name or the bound address (a rebound page sends its own name).
 * - **Origin**, when a browser sends one, must be a loopback origin (another local page, such as
 *   a developer's own tool on localhost:3000, is allowed); `Origin: null` (a sandboxed frame, a
 *   file) is refused, as it hides where the request came from.
 * - **Sec-Fetch-Site: cross-site** is refused: browsers send it on every request, the GETs that
 *   carry no Origin included.
 *
 * With `gateway.auth` none of these apply: every request but `/healthz` needs a bearer token,
 * which a page cannot add to a cross-origin request without a preflight that neither server
 * answers (they send no CORS headers), and the Host is whatever public name the operator (or a
 * reverse proxy in front) uses.
 *
 * Always, auth or not: a POST body must be declared `application/json` (parameters such as
 * `charset` allowed), checked before a byte of it is read; anything else is 415. That is what
 * stops the preflight-free `text/plain` form of the attack at the door, and it is the MCP
 * SDK's own rule (the same parser), applied before the body is buffered rather than after.
 */
import type { IncomingMessage } from "node:http";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { HttpError } from "../errors.js";
import { isLoopbackHost } from "../auth/token-auth.js";
import { clip } from "../text/prompt-text.js";
import { readJson } from "./json-http.js";

export interface RequestGuardOptions {
  /** The address the server is bound to (`gateway.host`, or `mcp --host`). */
  bindHost: string;
  /** Whether the server checks bearer tokens (`gateway.auth`): then the browser checks are left to them. */
  authenticated: boolean;
}

const forbidden = (message: string) => new HttpError("FORBIDDEN", message);
const shown = (value: string) => JSON.stringify(clip(value, 100));

export class RequestGuard {
  private readonly bindHost: string;

  constructor(private readonly options: RequestGuardOptions) {
    this.bindHost = bareHost(options.bindHost);
  }

  /** Host, Origin and Sec-Fetch-Site (without auth): a request a web page may have sent is FORBIDDEN. */
  admit(req: IncomingMessage): void {
    if (this.options.authenticated) return;
    const host = req.headers.host;
    if (!this.isLocal(hostName(host))) {
      throw forbidden(
        `Host header ${shown(host ?? "")} is not a loopback name or this server's address; without gateway.auth only local clients are served (a web page may reach a loopback port through a rebound DNS name).`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.isLocalOrigin(origin)) {
      throw forbidden(`Origin ${shown(origin)} is not a loopback origin; without gateway.auth a web page may not drive this server.`);
    }
    if (req.headers["sec-fetch-site"] === "cross-site") {
      throw forbidden("Sec-Fetch-Site: cross-site; without gateway.auth a web page may not drive this server.");
    }
  }

  /** The body as JSON, once its declared Content-Type is application/json (else 415, the body unread). */
  async readJson(req: IncomingMessage, maxBytes: number, notJson: "BAD_REQUEST" | "PARSE_ERROR"): Promise<unknown> {
    requireJsonContentType(req);
    return readJson(req, maxBytes, notJson);
  }

  private isLocal(name: string): boolean {
    return name !== "" && (isLoopbackHost(name) || bareHost(name) === this.bindHost);
  }

  private isLocalOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // "null" included
    }
    return (url.protocol === "http:" || url.protocol === "https:") && this.isLocal(url.hostname);
  }
}

/** A POST body must be declared application/json; refused (415) before it is read. */
function requireJsonContentType(req: IncomingMessage): void {
  const declared = req.headers["content-type"];
  if (isJsonContentType(declared)) return;
  throw new HttpError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be application/json; got ${declared === undefined ? "none" : shown(declared)}.`);
}

/** The name part of a Host header ("127.0.0.1:8080", "[::1]:80", "localhost"). */
function hostName(header: string | undefined): string {
  if (!header) return "";
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return bracketed[1]!;
  const colon = header.lastIndexOf(":");
  return colon > 0 && header.indexOf(":") === colon ? header.slice(0, colon) : header;
}

function bareHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
}
