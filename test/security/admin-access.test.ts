/**
 * Who may read the admin API and the console's data, on both faces: with gateway.auth only an
 * owner token (no token 401, another token 403); without it only a loopback client that a web
 * page could not have sent (a rebound Host, a foreign Origin, a cross-site fetch: 403); no CORS
 * answer lets a page read it; `gateway.admin: false` turns it all off; and a caller past its
 * share of admin requests in flight is told to wait (429), others still served.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperatorBudget } from "../../src/admin/admin-access.js";
import { call, origin, OWNER, startFaces, SUPPORT, TOKENS } from "../admin/fixture.js";

type Json = Record<string, any>;

/** A raw GET: fetch may not set Host or Sec-Fetch-Site, and a browser's headers are what is under test. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; json: Json }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: "GET", headers, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text.startsWith("{") ? (JSON.parse(text) as Json) : {} }));
      },
    );
    req.once("error", reject);
    req.end();
  });
}

describe("the admin API without gateway.auth", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  beforeAll(async () => {
    faces = await startFaces();
  }, 60_000);
  afterAll(async () => {
    await faces?.close();
  });

  it("answers a loopback client, and refuses what a web page could have sent, on both faces", async () => {
    for (const base of [faces.gateway.url, origin(faces.mcpUrl)]) {
      const port = new URL(base).port;
      expect((await rawGet(`${base}/admin/v1/catalog`, { host: `127.0.0.1:${port}` })).status).toBe(200);
      const attempts: Array<[Record<string, string>, string]> = [
        [{ host: `attacker.example:${port}` }, "Host header"],
        [{ host: `127.0.0.1:${port}`, origin: "https://attacker.example" }, "Origin"],
        [{ host: `127.0.0.1:${port}`, "sec-fetch-site": "cross-site" }, "Sec-Fetch-Site"],
      ];
      for (const [headers, says] of attempts) {
        for (const path of ["/admin/v1/telemetry", "/admin/v1/tenants", "/console/"]) {
          const refused = await rawGet(`${base}${path}`, headers);
          expect(refused.status, `${base}${path} ${JSON.stringify(headers)}`).toBe(403);
          expect(JSON.stringify(refused.json)).toContain(says);
        }
      }
    }
  });

  it("sends no CORS header, so a page on another origin cannot read an answer, and answers no preflight", async () => {
    const answer = await call(`${faces.gateway.url}/admin/v1/catalog`, { headers: { origin: faces.gateway.url } });
    expect(answer.status).toBe(200);
    expect([...answer.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
    const preflight = await call(`${faces.gateway.url}/admin/v1/search`, { method: "OPTIONS", headers: { "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(404);
    expect([...preflight.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  it("refuses a search body not declared application/json, before reading it", async () => {
    const response = await fetch(`${faces.gateway.url}/admin/v1/search`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"request":"x"}',
    });
    expect(response.status).toBe(415);
  });
});

describe("the admin API with gateway.auth", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  beforeAll(async () => {
    faces = await startFaces({ gateway: { auth: { tokens: TOKENS } } });
  }, 60_000);
  afterAll(async () => {
    await faces?.close();
  });

  it("answers an owner token only: 401 without a token, 403 for any other, on both faces", async () => {
    for (const base of [faces.gateway.url, origin(faces.mcpUrl)]) {
      for (const path of ["/admin/v1/catalog", "/admin/v1/telemetry", "/admin/v1/learning"]) {
        const none = await call<Json>(`${base}${path}`);
        expect(none.status, `${base}${path}`).toBe(401);
        expect(none.headers.get("www-authenticate")).toBe("Bearer");
        expect(none.json.error.code).toBe("UNAUTHORIZED");
        const wrong = await call<Json>(`${base}${path}`, { token: "not-a-token-0123456789abcdef" });
        expect(wrong.status).toBe(401);
        const support = await call<Json>(`${base}${path}`, { token: SUPPORT });
        expect(support.status).toBe(403);
        expect(support.json.error.message).toContain("owner tokens");
        expect((await call(`${base}${path}`, { token: OWNER })).status).toBe(200);
      }
      const search = await call<Json>(`${base}/admin/v1/search`, { token: SUPPORT, body: { request: "weather" } });
      expect(search.status).toBe(403);
    }
  });
});

describe("gateway.admin: false", () => {
  let faces: Awaited<ReturnType<typeof startFaces>>;
  beforeAll(async () => {
    faces = await startFaces({ gateway: { admin: false } });
  }, 60_000);
  afterAll(async () => {
    await faces?.close();
  });

  it("leaves no admin route and no console on either face", async () => {
    expect((await call(`${faces.gateway.url}/admin/v1/catalog`)).status).toBe(404);
    expect((await call(`${faces.gateway.url}/console/`)).status).toBe(404);
    expect((await call(`${origin(faces.mcpUrl)}/admin/v1/catalog`)).status).toBe(404);
  });
});

describe("the operator's budget of requests in flight", () => {
  it("refuses a caller past its share (429) while another caller is still served, and frees the slot when a request ends", async () => {
    const budget = new OperatorBudget({ perCaller: 2, total: 3 });
    const gates: Array<() => void> = [];
    const held = () => new Promise<void>((resolve) => gates.push(resolve));
    const first = [budget.run("a", held), budget.run("a", held)];
    await expect(budget.run("a", held)).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS", status: 429, headers: { "retry-after": "1" } });
    const other = budget.run("b", held);
    await expect(budget.run("c", held)).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    gates.shift()!();
    await first[0];
    const again = budget.run("a", held);
    for (const open of gates.splice(0)) open();
    await Promise.all([first[1], other, again]);
  });
});
