// Which WebAssembly build of the engine the worker runs, and with how many threads. The threaded build
// (glassbox-engine-threads) shares its memory between Web Workers, which browsers allow only on a
// cross-origin isolated page (COOP/COEP headers: docs/hosting.md); everywhere else the single-threaded build
// runs, and gives the same tokens. Whether memory can be shared is asked of the engine itself (canShareMemory).
import { GlassboxEngine, type ModuleFactory } from '@glassbox/engine';
import singleWasmUrl from '@engine-build/glassbox-engine.wasm?url';
// The threaded module stays a file of its own (not bundled into this worker): each of its pthread Workers
// imports it again by URL (mainScriptUrlOrBlob) and starts the same module in itself.
import threadsModuleUrl from '@engine-build/glassbox-engine-threads.mjs?url';
import threadsWasmUrl from '@engine-build/glassbox-engine-threads.wasm?url';
// Emscripten's bootstrap for each pthread's Worker: a small classic script that imports the module above. It
// travels as text and starts from a Blob URL, verbatim: served as a file, Vite's dev server would rewrite its
// dynamic import() into a module import, which a classic Worker cannot run.
import threadsWorkerSource from '@engine-build/glassbox-engine-threads.worker.js?raw';

/**
 * The most threads the page asks for: past about 8 the matrix products of the small models the page runs
 * are too short to split further, and each thread is a Web Worker with its own instance of the module.
 * The threaded module is linked for the same cap (CMakeLists.txt: GLASSBOX_WASM_MAX_THREADS).
 */
export const MAX_THREADS = 8;

export interface EngineChoice {
  threaded: boolean;
  threads: number;
}

/**
 * Whether this engine can do what the threaded build needs: make a shared WebAssembly.Memory and send it to
 * another worker (each pthread is a Worker that receives the memory by postMessage). It is tried rather than
 * inferred from `crossOriginIsolated` and the `SharedArrayBuffer` global: WebKitGTK (2.50) hides that global on
 * an isolated page yet makes shared memory, but refuses to send it (DataCloneError), so the threaded build
 * could not start its threads there (docs/hosting.md). Sending through a MessageChannel raises the same error
 * synchronously, without a Worker.
 */
export function canShareMemory(): boolean {
  if (self.crossOriginIsolated !== true) return false;
  const channel = new MessageChannel();
  try {
    channel.port1.postMessage(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }));
    return true;
  } catch {
    return false;
  } finally {
    channel.port1.close();
    channel.port2.close();
  }
}

/** The threaded build where memory can be shared between workers and there is more than one core, one thread per core up to the cap. */
export function chooseBuild(): EngineChoice {
  const cores = Math.max(1, Math.floor(navigator.hardwareConcurrency || 1));
  const threads = Math.min(cores, MAX_THREADS);
  return canShareMemory() && threads > 1 ? { threaded: true, threads } : { threaded: false, threads: 1 };
}

const absolute = (url: string) => new URL(url, import.meta.url).href;

let pthreadWorkerUrl: string | null = null;
const pthreadWorkerScript = () =>
  (pthreadWorkerUrl ??= URL.createObjectURL(new Blob([threadsWorkerSource], { type: 'text/javascript' })));

/** Loads the chosen build and makes an engine over it. */
export async function startEngine(choice: EngineChoice): Promise<GlassboxEngine> {
  if (!choice.threaded) {
    const { default: createModule } = await import('@engine-build/glassbox-engine.mjs');
    return GlassboxEngine.create(createModule, {
      locateFile: (file: string) => (file.endsWith('.wasm') ? singleWasmUrl : file),
    });
  }
  const moduleUrl = absolute(threadsModuleUrl);
  const { default: createModule } = (await import(/* @vite-ignore */ moduleUrl)) as { default: ModuleFactory };
  return GlassboxEngine.create(
    createModule,
    {
      mainScriptUrlOrBlob: moduleUrl,
      locateFile: (file: string) =>
        file.endsWith('.wasm') ? absolute(threadsWasmUrl) : file.endsWith('.worker.js') ? pthreadWorkerScript() : file,
    },
    { threads: choice.threads },
  );
}
