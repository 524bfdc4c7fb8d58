// The page's build: web/ is the site's root, dist/ the output, every path relative (base './') so dist/
// works from any static host or subfolder. The worker imports the Emscripten module from the WASM build
// (build-wasm/, or GLASSBOX_WASM_DIR) and its .wasm is emitted as a hashed asset beside the worker.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { modelsPlugin } from './web/tools/models-plugin.mjs';
import { serviceWorkerPlugin } from './web/tools/sw-plugin.mjs';

const repo = path.dirname(fileURLToPath(import.meta.url));
const wasmDir = path.resolve(repo, process.env.GLASSBOX_WASM_DIR ?? 'build-wasm');
const engineModule = path.join(wasmDir, 'glassbox-engine.mjs');

if (!fs.existsSync(engineModule) || !fs.existsSync(path.join(wasmDir, 'glassbox-engine.wasm'))) {
  throw new Error(
    `glassbox: ${engineModule} (and its .wasm) is missing. Build the WASM engine first ` +
      '(emcmake cmake -S . -B build-wasm && cmake --build build-wasm --target glassbox_engine), ' +
      'or point GLASSBOX_WASM_DIR at a folder holding glassbox-engine.{mjs,wasm}.',
  );
}

export default defineConfig({
  root: path.join(repo, 'web'),
  base: './',
  publicDir: false,
  resolve: {
    alias: {
      '@engine-build': wasmDir, // glassbox-engine.mjs and glassbox-engine.wasm
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
  server: { port: 5173, fs: { allow: [repo] } },
  preview: { port: 4173 },
  plugins: [
    modelsPlugin({ catalog: path.join(repo, 'web', 'models.json'), modelsDir: path.join(repo, 'models') }),
    serviceWorkerPlugin({ source: path.join(repo, 'web', 'sw.js') }),
  ],
});
