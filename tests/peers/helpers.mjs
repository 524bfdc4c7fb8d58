// Running glassbox and llama.cpp side by side: the native CLI for glassbox, node-llama-cpp's prebuilt CPU
// llama.cpp for the peer. llama.cpp runs with one thread, no flash attention and a float32 KV cache, so the
// only differences left are the two engines' own arithmetic.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// GLASSBOX_BUILD_DIR points at another native build folder (its glassbox binary and its ctest-written
// fixtures); GLASSBOX_CLI and GLASSBOX_FIXTURES_DIR override each one.
export const buildDir = path.resolve(process.env.GLASSBOX_BUILD_DIR ?? path.join(repo, 'build'));
export const cli = process.env.GLASSBOX_CLI ?? path.join(buildDir, 'glassbox');
export const fixtures = process.env.GLASSBOX_FIXTURES_DIR ?? path.join(buildDir, 'fixtures');
// The NumPy reference (tests/reference) runs on Debian's python3 with python3-numpy, as under CTest.
export const python = process.env.GLASSBOX_PYTHON ?? '/usr/bin/python3';
export const peersModules = path.join(repo, 'tests', 'peers', 'node_modules');
export const modelsDir = process.env.GLASSBOX_MODELS_DIR ?? path.join(repo, 'models');
export const vectorsDir = process.env.GLASSBOX_VECTORS_DIR ?? path.join(repo, '..', 'shared', 'tokenizer-vectors');
const requireAll = process.env.GLASSBOX_REQUIRE_MODELS === '1';

/** Goes on when nothing is missing; otherwise skips the test with a message naming what is missing and how to
 * get it, or fails it under GLASSBOX_REQUIRE_MODELS=1 (as in CI). */
export function requireNone(t, missing, how) {
  if (missing.length === 0) return true;
  const message = `absent: ${missing.join(', ')} (${how})`;
  if (requireAll) throw new Error(message);
  t.skip(message);
  return false;
}

export function requireFiles(t, ...files) {
  return requireNone(
    t,
    files.filter((f) => !fs.existsSync(f)),
    'scripts/build.sh, scripts/fetch-models.sh, then the native ctest run writes the fixtures',
  );
}

export function glassbox(args) {
  return execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

/** glassbox's greedy continuation: {prompt_ids, generated_ids, text}. */
export function glassboxGreedy(model, prompt, steps) {
  return JSON.parse(glassbox(['generate', '--model', model, '--prompt', prompt, '--temperature', '0', '--steps', String(steps), '--json']));
}

/** glassbox's token ids for a text: with BOS where its tokenizer adds one by default, or never (addBos false). */
export function glassboxTokenize(model, text, { addBos = true } = {}) {
  const args = ['tokenize', '--tokenizer', model, '--text', text, '--json'];
  return JSON.parse(glassbox(addBos ? args : [...args, '--no-bos'])).ids;
}

/** llama.cpp's token ids for a text as it prompts with it by default: BOS first when the vocabulary asks for
 * it (llama_vocab_get_add_bos), then the text without special-token parsing. */
export function llamaTokenize(model, text) {
  const bos = model.tokens.shouldPrependBosToken ? [model.tokens.bos] : [];
  return [...bos, ...Array.from(model.tokenize(text, false))];
}

/** A script's command line as {name: value}: `--name value`, or `--name` alone (true) when a flag follows it. */
export function commandLine(argv = process.argv.slice(2)) {
  return Object.fromEntries(argv.reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]?.startsWith('--') ? true : (all[i + 1] ?? true)]] : pairs), []));
}

/** Runs a program and returns its stdout (throws with its stderr when it fails). */
export function run(program, args) {
  return execFileSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

let llamaPromise = null;
/** The llama.cpp runtime (loaded once per test file). */
export async function llamaCpp() {
  if (!llamaPromise) {
    llamaPromise = import('node-llama-cpp').then(({ getLlama, LlamaLogLevel }) =>
      getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error, maxThreads: 1 }),
    );
  }
  return llamaPromise;
}

/** llama.cpp's greedy continuation of the given prompt ids, `count` tokens (stopping after an end token). */
export async function llamaGreedy(model, promptIds, count, endIds) {
  const context = await model.createContext({
    contextSize: 256,
    threads: 1,
    flashAttention: false,
    experimentalKvCacheKeyType: 'F32',
    experimentalKvCacheValueType: 'F32',
  });
  const ids = [];
  try {
    for await (const token of context.getSequence().evaluate(promptIds, { temperature: 0 })) {
      ids.push(token);
      if (ids.length >= count || endIds.includes(token)) break;
    }
  } finally {
    await context.dispose();
  }
  return ids;
}

/** The 46 texts of llama.cpp's tokenizer tests (each followed by the separator). */
export function vectorTexts() {
  const inp = fs.readFileSync(path.join(vectorsDir, 'ggml-vocab-llama-spm.gguf.inp'), 'utf8');
  return inp.split('\n__ggml_vocab_test__\n').slice(0, -1);
}

const wasmDir = process.env.GLASSBOX_WASM_DIR ?? path.join(repo, 'build-wasm');
const ENGINE_FILES = ['glassbox-engine.mjs', 'glassbox-engine.wasm', 'glassbox-engine-threads.mjs', 'glassbox-engine-threads.wasm', 'glassbox-engine-threads.worker.js'];

/**
 * Opens one of the benchmark pages (tests/peers/bench-page/PAGE, beside that folder's scripts) in headless Chromium and returns what it
 * leaves in window.benchResults, with Chromium's version. The page is served cross-origin isolated (the
 * static server sends COOP/COEP, so both engines' threaded builds can run) beside glassbox's engine modules
 * (engine/: GLASSBOX_WASM_DIR or build-wasm/, and wasm/engine.js), wllama's ESM build (wllama/) and `files`
 * ({name served: path here}); `query` goes into its URL. A page that reports {ok: false, error} throws.
 */
export async function runBenchPage(page, files, query) {
  // Imported here, not at the top: the tests that import this file open no browser.
  const [{ chromium }, { startStaticServer }] = await Promise.all([import('playwright-core'), import('../../web/tools/static-server.mjs')]);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-bench-'));
  fs.cpSync(path.join(repo, 'tests', 'peers', 'bench-page'), root, { recursive: true }); // the pages and their scripts
  fs.mkdirSync(path.join(root, 'engine'));
  for (const f of ENGINE_FILES) fs.cpSync(path.join(wasmDir, f), path.join(root, 'engine', f));
  fs.cpSync(path.join(repo, 'wasm', 'engine.js'), path.join(root, 'engine', 'engine.js'));
  fs.cpSync(path.join(peersModules, '@wllama', 'wllama', 'esm'), path.join(root, 'wllama'), { recursive: true });
  for (const [name, file] of Object.entries(files)) fs.cpSync(file, path.join(root, name));
  const server = await startStaticServer({ root });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const tab = await browser.newPage();
    await tab.goto(`${server.url}${page}?${new URLSearchParams(query)}`);
    await tab.waitForFunction(() => window.benchResults !== undefined, null, { timeout: 600_000 });
    const results = await tab.evaluate(() => window.benchResults);
    if (!results.ok) throw new Error(results.error);
    return { ...results, chromium: browser.version() };
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
