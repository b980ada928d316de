/** What the scale benchmarks share: a free loopback port, a generated plugin folder, one POST /v1/runs. */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `<dir>/plugins/acme.mjs`: 600 generated tools from the built demo catalog; returns the folder. */
export function writeAcmePlugin(dir: string, root: string): string {
  const plugins = path.join(dir, "plugins");
  mkdirSync(plugins);
  writeFileSync(
    path.join(plugins, "acme.mjs"),
    `import { syntheticTools } from ${JSON.stringify(path.join(root, "dist/src/demo/synthetic-catalog.js"))};\nexport default { id: "acme", tools: syntheticTools(600).map((t) => t.definition) };\n`,
  );
  return plugins;
}

/** POST /v1/runs on loopback; never rejects (status 0 on a transport error); the answer text is capped. */
export function postRun(port: number, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/runs",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        agent: false,
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text = (text + c.toString()).slice(0, 100_000)));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", () => resolve({ status: 0, text }));
      },
    );
    req.on("error", (error) => resolve({ status: 0, text: error.message }));
    req.setTimeout(60_000, () => req.destroy(new Error("timeout")));
    req.end(body);
  });
}
