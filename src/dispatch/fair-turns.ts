/**
 * Turns on the control path, shared per tenant. Searches, describes and "did you mean" lookups
 * run on the one main thread every session of a process shares (the gateway's, the MCP face's,
 * a library's), each a short synchronous piece of work. Run in the order they arrive, one
 * tenant's flood of them puts every other tenant's search behind the whole flood; here a piece
 * runs at once only while its tenant keeps to its share, and waits for its tenant's turn
 * otherwise:
 *
 * - At once: a piece of a tenant with nothing waiting whose main-thread time lately (its pieces'
 *   time, halved every second) is at most an even share of what the active tenants used
 *   (tenant-usage.ts). A tenant alone, or one that sends little while another floods, never
 *   waits; a tenant that floods soon uses more than its share, and then always has work waiting.
 *   A tenant over its share also runs at once when nothing is in the way (no piece waiting, no
 *   turn due), and then whatever arrives before the next turn waits for it: a client that sends
 *   one request at a time pays a hop at most.
 * - Otherwise in turns, round robin across tenants: a tenant with work waiting gets one turn in
 *   each round, so a quiet tenant's piece waits for at most one piece of each busy tenant,
 *   however many they queued.
 * - One piece per turn, the event loop given back between turns (`setImmediate`): the requests
 *   that arrived meanwhile (another tenant's search among them) are read and answered before the
 *   next turn. A flooding tenant's requests wait in its queue, not in front of others'; and as
 *   its answers come one per turn, so do its next requests.
 * - Paced when the loop is busy: the next turn of a tenant over its share with several pieces
 *   waiting (a flood: many requests at once) waits a timer tick (about 1 ms) instead, when the
 *   loop was busy more than half of the last 100 ms (loop-load.ts). A flood then does not keep
 *   the loop, and the machine's cores, saturated by itself, so another tenant's request finds
 *   them free; a tenant alone, within its share, or sending one request at a time is never paced.
 * - Bounded: a tenant holds at most `maxWaitingPerTenant` pieces waiting and the engine
 *   `maxWaiting` in all; past either, TOO_MANY_REQUESTS at once. A piece whose caller gave up
 *   (its signal aborted: a cancelled call, a run that ended) leaves the queue then.
 *
 * Hand-written: the queue libraries (p-queue and the like) bound concurrency, not the order
 * between tenants, and one piece per event-loop turn is the point here.
 */
import { onAbort } from "../abort-listeners.js";
import { HttpError } from "../errors.js";
import { LoopLoad } from "./loop-load.js";
import { TenantUsage } from "./tenant-usage.js";

export interface FairTurnsLimits {
  /** Pieces one tenant may have waiting; past it its next is refused. */
  maxWaitingPerTenant: number;
  /** Pieces all tenants may have waiting together. */
  maxWaiting: number;
}

/** Generous: a tenant's MCP sessions, agent turns and code bodies together rarely hold a tenth of it. */
const DEFAULT_TURN_LIMITS: FairTurnsLimits = { maxWaitingPerTenant: 1_024, maxWaiting: 16_384 };

/** Past this share of recent wall time busy, a tenant over its share is paced. */
const BUSY_CEILING = 0.5;

/** What the turns read of the world: a clock (ms) and how busy the loop was lately (0–1). */
export interface TurnClock {
  now(): number;
  busy(): number;
}

function loopClock(): TurnClock {
  const load = new LoopLoad();
  return { now: () => performance.now(), busy: () => load.busy() };
}

interface Waiting {
  run(): void;
  release(): void;
}

/** One tenant's side of the turns: what a run's dispatcher holds. */
export interface TenantTurns {
  /** `work`'s result once it ran in this tenant's turn; rejects with `signal`'s reason if it aborts first. */
  take<T>(work: () => T, signal?: AbortSignal): Promise<T>;
}

export class FairTurns {
  /** Tenants with work waiting, in turn order: the first goes next, then moves to the back. */
  readonly #queues = new Map<string, Waiting[]>();
  #waiting = 0;
  readonly #usage = new TenantUsage();
  /** A turn is scheduled (the loop runs until no piece waits). */
  #scheduled = false;

  constructor(
    private readonly limits: FairTurnsLimits = DEFAULT_TURN_LIMITS,
    /** The pieces' time and the loop's load (a test's own). */
    private readonly clock: TurnClock = loopClock(),
  ) {}

  /** How many pieces are waiting now, all tenants together. */
  get waiting(): number {
    return this.#waiting;
  }

  for(tenant: string): TenantTurns {
    return { take: (work, signal) => this.take(tenant, work, signal) };
  }

  take<T>(tenant: string, work: () => T, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const queue = this.#queues.get(tenant);
    if (queue === undefined) {
      if (this.#usage.withinShare(tenant, this.clock.now())) return this.#run(tenant, work);
      if (this.#waiting === 0 && !this.#scheduled) {
        this.#schedule();
        return this.#run(tenant, work);
      }
    }
    if ((queue?.length ?? 0) >= this.limits.maxWaitingPerTenant) return Promise.reject(refused(`this tenant has ${this.limits.maxWaitingPerTenant}`));
    if (this.#waiting >= this.limits.maxWaiting) return Promise.reject(refused(`all tenants together have ${this.limits.maxWaiting}`));
    return new Promise<T>((resolve, reject) => {
      const piece: Waiting = {
        run: () => {
          piece.release();
          this.#run(tenant, work).then(resolve, reject);
        },
        release: signal
          ? onAbort(signal, () => {
              this.#remove(tenant, piece);
              reject(signal.reason as Error);
            })
          : () => {},
      };
      if (queue) queue.push(piece);
      else this.#queues.set(tenant, [piece]);
      this.#waiting += 1;
      if (!this.#scheduled) this.#schedule();
    });
  }

  /** `work` run now, its time charged to `tenant`. */
  #run<T>(tenant: string, work: () => T): Promise<T> {
    const started = this.clock.now();
    try {
      return settle(work);
    } finally {
      const now = this.clock.now();
      this.#usage.charge(tenant, now - started, now);
    }
  }

  #schedule(): void {
    this.#scheduled = true;
    if (this.#paced()) setTimeout(() => this.#turn(), 1);
    else setImmediate(() => this.#turn());
  }

  /** The loop was busy lately, and the tenant whose turn is next floods: over its share, with several pieces waiting. */
  #paced(): boolean {
    const next = this.#queues.entries().next();
    if (next.done) return false;
    const [tenant, queue] = next.value;
    return queue.length > 1 && this.clock.busy() > BUSY_CEILING && !this.#usage.withinShare(tenant, this.clock.now());
  }

  /** The next tenant's first piece, run now; the tenant goes to the back of the order. */
  #turn(): void {
    this.#scheduled = false;
    const first = this.#queues.entries().next();
    if (first.done) return;
    const [tenant, queue] = first.value;
    const piece = queue.shift()!;
    this.#waiting -= 1;
    this.#queues.delete(tenant);
    if (queue.length > 0) this.#queues.set(tenant, queue);
    if (this.#waiting > 0) this.#schedule();
    piece.run();
  }

  #remove(tenant: string, piece: Waiting): void {
    const queue = this.#queues.get(tenant);
    const at = queue?.indexOf(piece) ?? -1;
    if (queue === undefined || at < 0) return;
    queue.splice(at, 1);
    this.#waiting -= 1;
    if (queue.length === 0) this.#queues.delete(tenant);
  }
}

/** `work` run now, its throw a rejection. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

function refused(who: string): HttpError {
  return new HttpError("TOO_MANY_REQUESTS", `Too many searches and describes waiting for their turn: ${who} waiting; wait for answers, then send more.`, {
    "retry-after": "1",
  });
}
