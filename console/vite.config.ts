/**
 * The web console's build (`npm run build:console`): console/ bundled into dist/console, which
 * the package ships and the faces serve at /console (src/console/console-assets.ts). Relative
 * asset URLs (base "./") so the page works under /console/ on any host; no inline script or
 * style (the Content-Security-Policy allows neither): no module-preload polyfill, assets as files.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: here,
  base: "./",
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("../dist/console", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
