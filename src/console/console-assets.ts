/**
 * The web console's static files (`/console`): built by `npm run build` into dist/console
 * (console/ in the repository: Preact, htm and uPlot bundled, no CDN) and shipped in the
 * package. Served as they are, from a list read once at load: a path that is not a file of
 * that folder is a 404, whatever dots or slashes it holds. Every answer carries a strict
 * Content-Security-Policy (scripts, styles, data only from this origin; no inline script, no
 * eval, no frames), so the page can do nothing but render and call the admin API.
 *
 * The shell holds no data: the browser cannot add a bearer token to a page load, so the files
 * are served under the request guard alone (loopback rules without gateway.auth), and every
 * figure comes from /admin/v1, which needs the owner token the console asks for.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HttpError } from "../errors.js";

/**
 * dist/console of the package this file belongs to: from dist/src/console (the package) two
 * folders up, from src/console (a clone's sources, as the tests run them) two up and into dist.
 */
function consoleDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const built = path.resolve(here, "../../console");
  return path.basename(path.resolve(here, "../..")) === "dist" ? built : path.resolve(here, "../../dist/console");
}

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/** The console's files, at most this many bytes in all: they are read into memory once. */
const MAX_CONSOLE_BYTES = 8 * 1024 * 1024;

interface Asset {
  body: Buffer;
  type: string;
  /** Bundled files carry a content hash in their names: cached for long. */
  immutable: boolean;
}

export interface ConsoleAssets {
  serve(req: IncomingMessage, res: ServerResponse, path: string): void;
}

/** Every file under `dir`, by its path relative to it (forward slashes). */
function filesUnder(dir: string, prefix = ""): Array<[string, string]> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): Array<[string, string]> => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, `${prefix}${entry.name}/`);
    return entry.isFile() ? [[`${prefix}${entry.name}`, full]] : [];
  });
}

export function loadConsoleAssets(dir = consoleDir()): ConsoleAssets {
  const assets = new Map<string, Asset>();
  if (existsSync(path.join(dir, "index.html"))) {
    let total = 0;
    for (const [name, file] of filesUnder(dir)) {
      const type = TYPES[path.extname(name)];
      if (type === undefined) continue;
      total += statSync(file).size;
      if (total > MAX_CONSOLE_BYTES) break;
      assets.set(name, { body: readFileSync(file), type, immutable: name.startsWith("assets/") });
    }
  }
  return {
    serve(req, res, urlPath) {
      if (req.method !== "GET" && req.method !== "HEAD")
        throw new HttpError("NOT_FOUND", `The console is GET only; no route ${req.method} ${urlPath.slice(0, 100)}.`);
      if (urlPath === "/console") {
        // Relative asset URLs resolve against the folder: /console/ is the page.
        res.writeHead(308, { location: "/console/", "content-length": 0 });
        res.end();
        return;
      }
      const name = urlPath.slice("/console/".length) || "index.html";
      const asset = assets.get(name);
      if (asset === undefined) {
        throw new HttpError(
          "NOT_FOUND",
          assets.size === 0
            ? "The console was not built into this package (npm run build builds it)."
            : `No console file ${JSON.stringify(name.slice(0, 100))}.`,
        );
      }
      res.writeHead(200, {
        "content-type": asset.type,
        "content-length": asset.body.length,
        "content-security-policy": CONSOLE_CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
        "cross-origin-opener-policy": "same-origin",
        "cache-control": asset.immutable ? "public, max-age=31536000, immutable" : "no-cache",
      });
      res.end(req.method === "HEAD" ? undefined : asset.body);
    },
  };
}
