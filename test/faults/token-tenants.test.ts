/**
 * Tenants are named by their tokens, never by their place in `gateway.auth.tokens`: reordering,
 * adding or revoking tokens moves no learning (or poisoning) from one customer to another.
 * Through the config path both faces use (resolveServerConfig → engineFromConfig → TokenTable).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coreTools } from "../../src/catalog/sources.js";
import type { ToolDefinition } from "../../src/catalog/types.js";
import { tenantOfToken, tokenTenant, TokenTable } from "../../src/auth/token-auth.js";
import { engineFromConfig } from "../../src/config/config-engine.js";
import { resolveServerConfig } from "../../src/config/server-config.js";

const A = "token-of-acme-0123456789abcdef";
const B = "token-of-globex-0123456789abcdef";
const C = "token-of-initech-0123456789abcdef";
const REQUEST = "zorblat the quarterly ledger";

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ done: name }),
});
const CATALOG = [tool("send_invoice", "Create and email an invoice to a customer."), tool("delete_repo", "Delete a repository for good.")];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Entry = { token: string; tenant?: string };
async function gatewayEngine(dir: string, tokens: Entry[]) {
  const config = resolveServerConfig(
    {
      tools: { toolSearch: { mode: "tools", indexCacheDir: dir, learning: { minSessions: 1, flushMs: 3_600_000 } } },
      gateway: { port: 0, auth: { tokens } },
    },
    process.cwd(),
    {},
  );
  const { engine } = await engineFromConfig(config, { sources: [coreTools(CATALOG)] });
  await engine.learning!.ready();
  const table = new TokenTable(config.gateway.auth!.tokens);
  /** The tenant a face gives the runs of a request carrying this token. */
  const tenantOf = (token: string) => tokenTenant(table.match(`Bearer ${token}`)!);
  return { engine, tenantOf };
}
type Gateway = Awaited<ReturnType<typeof gatewayEngine>>;

async function teach({ engine, tenantOf }: Gateway, token: string, tool: string): Promise<void> {
  const run = await engine.prepareRun({ sessionId: `s-${token}`, agentId: "main", tenant: tenantOf(token) });
  expect(await run.feedback(REQUEST, tool)).toBe(true);
  await run.end();
}
async function top({ engine, tenantOf }: Gateway, token: string): Promise<string | undefined> {
  const run = await engine.prepareRun({ sessionId: "probe", agentId: "main", tenant: tenantOf(token) });
  const hits = await run.search(REQUEST);
  await run.end();
  return hits.find((h) => h.weak !== true)?.id;
}

describe("token tenants", () => {
  it("a token's tenant is its explicit name or a hash of the token, never its index", () => {
    expect(tenantOfToken({ token: A, tenant: "acme" })).toBe("acme");
    expect(tenantOfToken({ token: A })).toMatch(/^token:[\w-]{16}$/);
    expect(tenantOfToken({ token: A })).toBe(tenantOfToken({ token: A }));
    expect(tenantOfToken({ token: A })).not.toBe(tenantOfToken({ token: B }));
    expect(tenantOfToken({ token: A })).not.toContain(A.slice(0, 8));
    const first = new TokenTable([{ token: A }, { token: B }]);
    const reordered = new TokenTable([{ token: B }, { token: A }]);
    expect(tokenTenant(first.match(`Bearer ${A}`)!)).toBe(tokenTenant(reordered.match(`Bearer ${A}`)!));
  });

  it("refuses a tenant name that is not a plain name", () => {
    expect(() => resolveServerConfig({ gateway: { auth: { tokens: [{ token: A, tenant: "token:0" }] } } }, process.cwd(), {})).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining("tenant") }),
    );
  });

  it("reordering tokens moves no learning; a new token in a revoked one's place inherits nothing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ts-tenants-"));
    dirs.push(dir);
    const before = await gatewayEngine(dir, [{ token: A }, { token: B }]);
    await teach(before, A, "core:send_invoice");
    // B pushes a destructive tool for the same words (what poisoning looks like).
    await teach(before, B, "core:delete_repo");
    expect(await top(before, A)).toBe("core:send_invoice");
    expect(await top(before, B)).toBe("core:delete_repo");
    await before.engine.close();

    const reordered = await gatewayEngine(dir, [{ token: B }, { token: A }]);
    expect(await top(reordered, A)).toBe("core:send_invoice");
    expect(await top(reordered, B)).toBe("core:delete_repo");
    await reordered.engine.close();

    // B revoked, C added at B's old index: C learned nothing, and B's rows are gone.
    const revoked = await gatewayEngine(dir, [{ token: A }, { token: C }]);
    expect(await top(revoked, C)).toBeUndefined();
    expect(await top(revoked, A)).toBe("core:send_invoice");
    expect((await revoked.engine.learning!.export()).rows.filter((r) => r.tool === "core:delete_repo")).toEqual([]);
    await revoked.engine.close();
  });

  it("a token rotated under the same tenant name keeps that tenant's learning", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ts-tenants-"));
    dirs.push(dir);
    const before = await gatewayEngine(dir, [{ token: A, tenant: "acme" }]);
    await teach(before, A, "core:send_invoice");
    await before.engine.close();
    const rotated = await gatewayEngine(dir, [{ token: C, tenant: "acme" }]);
    expect(await top(rotated, C)).toBe("core:send_invoice");
    await rotated.engine.close();
  });
});
