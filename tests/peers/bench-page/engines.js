// The two engines as the benchmark pages (bench.html, encoder.html) start them, from the files runBenchPage
// (../helpers.mjs) serves beside the pages: glassbox's engine modules in ./engine/, wllama's in ./wllama/.
// Past one thread both take their threaded builds, which need the page cross-origin isolated (it is served so).

/** glassbox's WebAssembly engine with a GGUF file's bytes loaded, computing with `threads` threads. */
export async function openGlassbox(modelBytes, threads) {
  const moduleUrl = new URL(threads > 1 ? './engine/glassbox-engine-threads.mjs' : './engine/glassbox-engine.mjs', location.href).href;
  const { default: createModule } = await import(moduleUrl);
  const { GlassboxEngine, MODEL_SLOT } = await import('./engine/engine.js');
  const engine = await GlassboxEngine.create(createModule, { locateFile: (f) => `./engine/${f}`, mainScriptUrlOrBlob: moduleUrl }, { threads });
  engine.uploadBytes(MODEL_SLOT, modelBytes, 'model.gguf');
  const info = engine.load('model.gguf');
  if (info.threads !== threads) throw new Error(`glassbox runs ${info.threads} threads, not ${threads}`);
  return { engine, info };
}

/** A wllama (llama.cpp's WebAssembly build), its single- and multi-thread builds at hand; loading picks one. */
export async function newWllama() {
  const { Wllama } = await import('./wllama/index.js');
  return new Wllama({ 'single-thread/wllama.wasm': './wllama/single-thread/wllama.wasm',
                      'multi-thread/wllama.wasm': './wllama/multi-thread/wllama.wasm' });
}
