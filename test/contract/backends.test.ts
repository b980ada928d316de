import { fts5Backend } from "../../src/search/fts5-backend.js";
import { minisearchBackend } from "../../src/search/minisearch-backend.js";
import { bm25fBackend } from "../../src/search/bm25f-backend.js";
import { backendContract } from "./backend-contract.js";

backendContract(fts5Backend);
backendContract(minisearchBackend);
backendContract(bm25fBackend);
