// The page's build: web/ is the site's root, dist/ the output, every path relative (base './') so dist/
// works from any static host or subfolder. The worker imports the Emscripten module from the WASM build
// (build-wasm/, or GLASSBOX_WASM_DIR) and its .wasm is emitted as a hashed asset beside the worker; the threaded
// build (glassbox-engine-threads.{mjs,wasm,worker.js}) is emitted as files of its own, loaded by URL when the
// page is cross-origin isolated (web/src/worker/engine-build.ts). The dev and preview servers send the
// headers that isolate the page, and the page's Content-Security-Policy (its meta tag in web/index.html) as a
// header, which reaches the worker scripts too, as the project's static server does (docs/hosting.md).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { modelsPlugin } from './web/tools/models-plugin.mjs';
import { ISOLATION_HEADERS, pagePolicy } from './web/tools/static-server.mjs';
import { serviceWorkerPlugin } from './web/tools/sw-plugin.mjs';

const repo = path.dirname(fileURLToPath(import.meta.url));
const wasmDir = path.resolve(repo, process.env.GLASSBOX_WASM_DIR ?? 'build-wasm');
const engineFiles = ['glassbox-engine.mjs', 'glassbox-engine.wasm',
  'glassbox-engine-threads.mjs', 'glassbox-engine-threads.wasm', 'glassbox-engine-threads.worker.js'];
const missing = engineFiles.filter((file) => !fs.existsSync(path.join(wasmDir, file)));

if (missing.length > 0) {
  throw new Error(
    `glassbox: ${missing.join(', ')} missing in ${wasmDir}. Build the WASM engine first ` +
      '(emcmake cmake -S . -B build-wasm && cmake --build build-wasm --target glassbox_engine glassbox_engine_threads), ' +
      'or point GLASSBOX_WASM_DIR at a folder holding glassbox-engine.{mjs,wasm} and glassbox-engine-threads.{mjs,wasm,worker.js}.',
  );
}

const serverHeaders = { ...ISOLATION_HEADERS, 'Content-Security-Policy': pagePolicy(path.join(repo, 'web', 'index.html')) };

export default defineConfig({
  root: path.join(repo, 'web'),
  base: './',
  publicDir: false,
  resolve: {
    alias: {
      '@engine-build': wasmDir, // glassbox-engine.{mjs,wasm}, glassbox-engine-threads.{mjs,wasm,worker.js}
      '@glassbox/engine': path.join(repo, 'wasm', 'engine.js'), // the engine's API; types in wasm/engine.d.ts
    },
  },
  worker: { format: 'es' },
  build: {
    outDir: path.join(repo, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0, // the .wasm must stay a file (streaming compile), never a data: URL
    reportCompressedSize: false,
  },
  server: { port: 5173, fs: { allow: [repo] }, headers: serverHeaders },
  preview: { port: 4173, headers: serverHeaders },
  plugins: [
    modelsPlugin({ catalog: path.join(repo, 'web', 'models.json'), modelsDir: path.join(repo, 'models') }),
    serviceWorkerPlugin({ source: path.join(repo, 'web', 'sw.js') }),
  ],
});
