// Probe: one set's replay at its whole past split, with a given weight (tuning aid; see probe.ts).
//   node dist/bench/learning/probe-set.js SET WEIGHT [dev|bench]   (env K1, B, POW, EVID, SMW, SMH, RATE, UF, HALF, MARGIN=0)
// Tunes learning model internals (fusion, learned BM25, step) on purpose: imports src/learning/ directly.
import { sharedDataDir } from "../lib/shared-data.js";
import { liveMcpSet, sealSet, metaToolSet, shuffled } from "./sets.js";
import { replayCurve } from "./replay.js";
import { DEFAULT_FUSE } from "../../src/learning/fuse.js";
import { LEARNED_BM25, LEARNED_STEP } from "../../src/learning/model.js";
const dir = sharedDataDir()!;
const name = process.argv[2] ?? "seal-tools";
const weight = Number(process.argv[3] ?? 20);
const env = (key: string): number | undefined => (process.env[key] !== undefined ? Number(process.env[key]) : undefined);
DEFAULT_FUSE.margin = process.env.MARGIN !== "0";
DEFAULT_FUSE.half = env("HALF") ?? DEFAULT_FUSE.half;
LEARNED_BM25.k1 = env("K1") ?? LEARNED_BM25.k1;
LEARNED_BM25.b = env("B") ?? LEARNED_BM25.b;
LEARNED_BM25.coverPower = env("POW") ?? LEARNED_BM25.coverPower;
LEARNED_BM25.evidenceHalf = env("EVID") ?? LEARNED_BM25.evidenceHalf;
LEARNED_BM25.softmaxWeight = env("SMW") ?? LEARNED_BM25.softmaxWeight;
LEARNED_BM25.softmaxHalf = env("SMH") ?? LEARNED_BM25.softmaxHalf;
LEARNED_STEP.rate = env("RATE") ?? LEARNED_STEP.rate;
DEFAULT_FUSE.untaughtFirst = env("UF") ?? DEFAULT_FUSE.untaughtFirst;
const full = name === "seal-tools" ? sealSet(dir) : name === "livemcpbench" ? liveMcpSet(dir) : metaToolSet(dir);
// "dev" mode: replay part of the past split, score the rest (tuning without the held-out split):
// MetaTool 80/20 of a shuffle (as probe.ts), the others half on half.
const devSet = () => {
  if (name === "metatool") {
    const past = shuffled(full.past);
    const cut = Math.floor(past.length * 0.8);
    return { ...full, past: past.slice(0, cut), heldOut: past.slice(cut, cut + 2000) };
  }
  return { ...full, past: full.past.filter((_, i) => i % 2 === 0), heldOut: full.past.filter((_, i) => i % 2 === 1) };
};
const mode = process.argv[4];
// "bench" mode: the learning bench's order (past and held-out shuffled as learning-bench.ts does).
const set =
  mode === "dev"
    ? devSet()
    : mode === "bench"
      ? { ...full, past: name === "metatool" ? shuffled(full.past) : full.past, heldOut: shuffled(full.heldOut, "held-out") }
      : full;
const curve = await replayCurve(set, { checkpoints: [0, set.past.length], learning: { weight } });
console.log(name, weight, JSON.stringify(curve.map((p) => [p.sessions, p.top1.toFixed(4), p.top5.toFixed(4), p.learnedTop1.toFixed(3), p.active])));
