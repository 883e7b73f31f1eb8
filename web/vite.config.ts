import { defineConfig } from "vite";

// The dashboard is served by the Go binary from dist/ (embedded), so the build
// output is committed and must be reproducible: no source maps, no timestamps.
// `npm run dev` proxies the API to a server on the default address.
const server = "http://127.0.0.1:8080";

export default defineConfig({
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    target: "es2022",
    reportCompressedSize: false,
    // The polyfill is only for browsers without modulepreload; all we support have it.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: {
      "/api": server,
      "/switchboard.v1.": server,
    },
  },
});
