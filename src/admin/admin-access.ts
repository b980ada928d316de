/**
 * Who may use the operator's endpoints (`/admin/v1/`, `/metrics`, `/console`'s data): with
 * `gateway.auth`, a token with `owner: true` (others get 403; no token, 401); without it, a
 * client on a loopback address that passed the request guard (http/request-guard.ts: loopback
 * Host, no foreign Origin, no cross-site fetch). And how much of the process they may use at
 * once: a few requests in flight per caller, and a bound over all callers (429 past either), so
 * that one operator's dashboard in a loop cannot starve the traffic the process is there for.
 */
import type { IncomingMessage } from "node:http";
import { isLoopbackHost, tokenTenant, unauthorized, type TokenIdentity } from "../auth/token-auth.js";
import { HttpError } from "../errors.js";

/**
 * The caller's identity as the face matched it: a token's identity; `null` when the server has
 * no `gateway.auth`; `undefined` when it has and the request carried no valid token.
 */
export type FaceIdentity = TokenIdentity | null | undefined;

/** Throws 401 or 403 unless the caller may use the operator's endpoints; returns the key its requests are counted under. */
export function admitOperator(req: IncomingMessage, identity: FaceIdentity, server: "gateway" | "server"): string {
  if (identity === undefined) throw unauthorized(req.headers.authorization, server);
  if (identity !== null) {
    if (identity.owner !== true)
      throw new HttpError("FORBIDDEN", "The admin API, /metrics and the console's data are for owner tokens (gateway.auth.tokens with owner: true).");
    return tokenTenant(identity);
  }
  // Without tokens the bind is loopback (the faces refuse anything else at start); the peer is checked as well, whatever sits in front.
  const peer = req.socket.remoteAddress ?? "";
  if (!isLoopbackHost(peer)) throw new HttpError("FORBIDDEN", "Without gateway.auth the admin API answers loopback clients only.");
  return `address:${peer}`;
}

export interface OperatorBudgetLimits {
  /** Requests one caller may have in flight (default 4). */
  perCaller: number;
  /** Requests all callers together may have in flight (default 16). */
  total: number;
}

/** Requests in flight, per caller and in all; a request past either bound is refused (429), not queued. */
export class OperatorBudget {
  private readonly byCaller = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: OperatorBudgetLimits = { perCaller: 4, total: 16 }) {}

  async run<T>(caller: string, work: () => Promise<T>): Promise<T> {
    const mine = this.byCaller.get(caller) ?? 0;
    if (mine >= this.limits.perCaller || this.total >= this.limits.total) {
      const which = mine >= this.limits.perCaller ? `${this.limits.perCaller} of this caller's` : `${this.limits.total}`;
      throw new HttpError("TOO_MANY_REQUESTS", `${which} admin requests are in flight; wait for one to finish.`, { "retry-after": "1" });
    }
    this.byCaller.set(caller, mine + 1);
    this.total += 1;
    try {
      return await work();
    } finally {
      this.total -= 1;
      const left = (this.byCaller.get(caller) ?? 1) - 1;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
    }
  }
}
