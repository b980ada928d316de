import { bm25fBackend } from "../../src/search/backends/bm25f-backend.js";
import { minisearchBackend } from "../../src/search/backends/minisearch-backend.js";
import { memoryBm25fBackend } from "../../src/search/backends/memory-bm25f-backend.js";
import { backendContract } from "./backend-contract.js";

backendContract(bm25fBackend);
backendContract(minisearchBackend);
backendContract(memoryBm25fBackend);
