/** The benches' bm25() baseline is a whole SearchBackend: the contract every engine backend passes (it has no snapshot). */
import { fts5Bm25Backend } from "../../../bench/lib/fts5-bm25/backend.js";
import { backendContract } from "../../contract/backend-contract.js";

backendContract(fts5Bm25Backend);
