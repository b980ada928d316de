// MetaTool: replay the whole tune split, score validate (the target figure).
import { sharedDataDir } from "../lib/shared-data.js";
import { metaToolSet, shuffled } from "./sets.js";
import { replayCurve } from "./replay.js";
const set = metaToolSet(sharedDataDir()!);
const t = performance.now();
const curve = await replayCurve({ ...set, past: shuffled(set.past) }, { checkpoints: [0, 100, 1000, 10000, set.past.length] });
console.log(JSON.stringify(curve), ((performance.now() - t) / 1000).toFixed(1));
