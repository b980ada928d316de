/**
 * The admin API's wire types (src/admin/admin-wire-types.ts) import the engine's own types, and
 * the web console reads them in a browser build without Node's types. So the console's program
 * (console/tsconfig.json, what `npm run typecheck` runs as `tsc -p console/tsconfig.json`) must
 * compile the wire types and every engine module they reach, without Node's types, and without
 * an error: a module that touches Node (`node:*`, Buffer, NodeJS.*) reached from the wire types
 * fails here, naming the file, instead of being read by the console as types it cannot have.
 */
import path from "node:path";
import { API, type Project } from "typescript/unstable/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../architecture/import-graph.js";

const WIRE_TYPES = path.join(ROOT, "src/admin/admin-wire-types.ts");
const ENGINE = path.join(ROOT, "src") + path.sep;

let api: API;
let consoleProject: Project;
beforeAll(() => {
  api = new API({ cwd: ROOT });
  const project = api.updateSnapshot({ openProject: path.join(ROOT, "console/tsconfig.json") }).getProjects()[0];
  if (!project) throw new Error("console/tsconfig.json opened no project");
  consoleProject = project;
});
afterAll(() => api.close());

describe("the console's typecheck of the admin API's wire types", () => {
  it("compiles the wire types and the engine modules they import, and no Node types", () => {
    const files = consoleProject.program.getSourceFileNames();
    expect(files).toContain(WIRE_TYPES);
    expect(files.filter((file) => file.startsWith(ENGINE)).length).toBeGreaterThan(1);
    expect(files.filter((file) => /[\\/]@types[\\/]node[\\/]/.test(file))).toEqual([]);
  });

  it("finds no error in any engine module it compiles", () => {
    const engineFiles = consoleProject.program.getSourceFileNames().filter((file) => file.startsWith(ENGINE));
    const errors = engineFiles.flatMap((file) =>
      [...consoleProject.program.getSyntacticDiagnostics(file), ...consoleProject.program.getSemanticDiagnostics(file)].map(
        (diagnostic) => `${path.relative(ROOT, file)}: TS${diagnostic.code} ${diagnostic.text}`,
      ),
    );
    expect(errors).toEqual([]);
  });
});
