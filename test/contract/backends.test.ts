import { bm25fBackend } from "../../src/search/fts5-backend.js";
import { minisearchBackend } from "../../src/search/minisearch-backend.js";
import { memoryBm25fBackend } from "../../src/search/bm25f-backend.js";
import { backendContract } from "./backend-contract.js";

backendContract(bm25fBackend);
backendContract(minisearchBackend);
backendContract(memoryBm25fBackend);
