/**
 * The sessions `toolsearch mcp` holds open: all of them (stdio and HTTP), the HTTP ones by their
 * `mcp-session-id`, and the HTTP ones still being opened, which count against the caps before
 * they exist (tenant-shares.ts). Closing a session is idempotent and removes it everywhere.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { TokenIdentity } from "../auth/token-auth.js";
import type { TenantTurns } from "../dispatch/fair-turns.js";
import type { HttpAnswerFlow, RequestBudget } from "./answer-flow.js";
import type { FaceSession } from "./face-session.js";
import type { SessionTenantKey } from "./tenant-shares.js";

export interface LiveSession {
  session: FaceSession;
  server: Server;
  /** Its requests in flight (capped) and when it was last used. */
  budget: RequestBudget;
  /** HTTP: the token identity that opened it (null without auth). */
  identity?: TokenIdentity | null;
  /** HTTP: whose share of the sessions it counts against. */
  tenant?: SessionTenantKey;
  /** HTTP: its tenant's turns on the control path, one taken per request. */
  turns?: TenantTurns;
  transport?: StreamableHTTPServerTransport;
  /** HTTP: its answers on their way to the client (unread bytes, hang-ups). */
  flow?: HttpAnswerFlow;
  closing?: Promise<void>;
}

export class FaceSessions {
  readonly #live = new Set<LiveSession>();
  readonly #byHttpId = new Map<string, LiveSession>();
  #opening = 0;
  readonly #openingBy = new Map<SessionTenantKey, number>();

  /** Sessions open now. */
  get size(): number {
    return this.#live.size;
  }

  all(): LiveSession[] {
    return [...this.#live];
  }

  add(entry: LiveSession): void {
    this.#live.add(entry);
  }

  /** Whether any session has a request in flight: the drain waits for it. */
  busy(): boolean {
    return this.all().some((entry) => entry.budget.inFlight() > 0);
  }

  /** The HTTP session a `mcp-session-id` names. */
  http(id: string): LiveSession | undefined {
    return this.#byHttpId.get(id);
  }

  /** The HTTP sessions whose initialize was answered. */
  httpSessions(): LiveSession[] {
    return [...this.#byHttpId.values()];
  }

  /** The SDK assigned `entry` its session id: requests that carry it reach it from now on. */
  bindHttp(id: string, entry: LiveSession): void {
    this.#byHttpId.set(id, entry);
  }

  isBound(entry: LiveSession): boolean {
    return this.#byHttpId.has(entry.transport?.sessionId ?? "");
  }

  /** HTTP sessions being opened now: all of them, and `tenant`'s. */
  opening(tenant: SessionTenantKey): { all: number; tenant: number } {
    return { all: this.#opening, tenant: this.#openingBy.get(tenant) ?? 0 };
  }

  /** `open` runs with its session counted as opening for `tenant` (against the caps) until it settles. */
  async whileOpening<T>(tenant: SessionTenantKey, open: () => Promise<T>): Promise<T> {
    this.#opening += 1;
    this.#openingBy.set(tenant, (this.#openingBy.get(tenant) ?? 0) + 1);
    try {
      return await open();
    } finally {
      this.#opening -= 1;
      const left = (this.#openingBy.get(tenant) ?? 1) - 1;
      if (left > 0) this.#openingBy.set(tenant, left);
      else this.#openingBy.delete(tenant);
    }
  }

  /** Ends `entry`: its answers, its server, its engine run. Once, however often called. */
  close(entry: LiveSession): Promise<void> {
    entry.closing ??= (async () => {
      this.#live.delete(entry);
      if (entry.transport?.sessionId) this.#byHttpId.delete(entry.transport.sessionId);
      entry.flow?.close();
      await entry.server.close().catch(() => {});
      await entry.session.close();
    })();
    return entry.closing;
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.all().map((entry) => this.close(entry)));
  }

  /** Closes the HTTP sessions with nothing in flight that were last used more than `idleMs` ago. */
  closeIdle(idleMs: number): void {
    const now = Date.now();
    for (const entry of this.httpSessions()) if (entry.budget.inFlight() === 0 && now - entry.budget.lastUsed() > idleMs) void this.close(entry);
  }
}
