/**
 * Tuning probe (MetaTool's tune split only): replay 80% of it, score the other 20%.
 *   node dist/bench/learning/probe.js tune HALF K1 B WEIGHT [SESSIONS]   (env TERMS, K, MARGIN=0)
 * `validate` is never read here; bench/learning/validate.js scores it with the defaults.
 */
import { sharedDataDir } from "../lib/shared-data.js";
import { metaToolSet, shuffled } from "./sets.js";
import { replayCurve } from "./replay.js";
import { DEFAULT_FUSE } from "../../src/learning/fuse.js";
import { LEARNED_BM25 } from "../../src/learning/model.js";

const dir = sharedDataDir()!;
const set = metaToolSet(dir);
const past = shuffled(set.past);
const cut = Math.floor(past.length * 0.8);
const mode = process.argv[2] ?? "tune";
const half = Number(process.argv[3] ?? 4);
const k1 = Number(process.argv[4] ?? 1.2);
const b = Number(process.argv[5] ?? 0.5);
const weight = Number(process.argv[6] ?? 1);
DEFAULT_FUSE.half = half;
DEFAULT_FUSE.margin = process.env.MARGIN !== "0";
LEARNED_BM25.k1 = k1;
LEARNED_BM25.b = b;
const t = performance.now();
const probeSet = mode === "tune" ? { ...set, past: past.slice(0, cut), heldOut: past.slice(cut) } : { ...set, past };
const pts = Number(process.argv[7] ?? probeSet.past.length);
const curve = await replayCurve(probeSet, {
  checkpoints: [pts],
  learning: { weight, ...(process.env.TERMS ? { maxTermsPerTool: Number(process.env.TERMS) } : {}), minSessions: Number(process.env.K ?? 3) },
  evalLimit: 2000,
});
console.log(
  JSON.stringify({
    mode,
    half,
    k1,
    b,
    weight,
    curve: curve.map((p) => [p.sessions, p.top1.toFixed(3), p.top5.toFixed(3), p.learnedTop1.toFixed(3), p.active]),
    s: ((performance.now() - t) / 1000).toFixed(1),
  }),
);
