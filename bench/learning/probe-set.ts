// Probe: one set's replay at its whole past split, with a given weight (tuning aid; see probe.ts).
import { sharedDataDir } from "../lib/shared-data.js";
import { liveMcpSet, sealSet, metaToolSet } from "./sets.js";
import { replayCurve } from "./replay.js";
const dir = sharedDataDir()!;
const name = process.argv[2] ?? "seal-tools";
const weight = Number(process.argv[3] ?? 20);
import { DEFAULT_FUSE } from "../../src/learning/fuse.js";
DEFAULT_FUSE.margin = process.env.MARGIN !== "0";
import { LEARNED_BM25 } from "../../src/learning/model.js";
LEARNED_BM25.alpha = Number(process.env.ALPHA ?? LEARNED_BM25.alpha);
const full = name === "seal-tools" ? sealSet(dir) : name === "livemcpbench" ? liveMcpSet(dir) : metaToolSet(dir);
// "dev" mode: replay half of the past split, score the other half (tuning without the held-out split).
const set = process.argv[4] === "dev" ? { ...full, past: full.past.filter((_, i) => i % 2 === 0), heldOut: full.past.filter((_, i) => i % 2 === 1) } : full;
const curve = await replayCurve(set, { checkpoints: [0, set.past.length], learning: { weight } });
console.log(name, weight, curve.map((p) => [p.sessions, p.top1.toFixed(3), p.top5.toFixed(3), p.learnedTop1.toFixed(3), p.active]));
