// The WebAssembly build's own files, reached through the '@engine-build' alias of vite.config.mjs
// (build-wasm/, or GLASSBOX_WASM_DIR). The engine's API, '@glassbox/engine', is typed beside its code:
// wasm/engine.d.ts.

declare module '@engine-build/glassbox-engine.mjs' {
  import type { ModuleFactory } from '@glassbox/engine';
  const createGlassboxModule: ModuleFactory;
  export default createGlassboxModule;
}

declare module '@engine-build/glassbox-engine.wasm?url' {
  const url: string;
  export default url;
}

// The threaded build (pthreads): its module and .wasm are shipped as files of their own and loaded by URL; its
// pthread Worker script is bundled as text (web/src/worker/engine-build.ts).
declare module '@engine-build/glassbox-engine-threads.mjs?url' {
  const url: string;
  export default url;
}

declare module '@engine-build/glassbox-engine-threads.wasm?url' {
  const url: string;
  export default url;
}

declare module '@engine-build/glassbox-engine-threads.worker.js?raw' {
  const source: string;
  export default source;
}
