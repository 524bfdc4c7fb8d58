// Shared by the Node tests of the WebAssembly build: where things are, and loading the engine module.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const wasmDir = process.env.GLASSBOX_WASM_DIR ?? path.join(repo, 'build-wasm');
export const modelsDir = process.env.GLASSBOX_MODELS_DIR ?? path.join(repo, 'models');
export const goldenFile = path.join(process.env.GLASSBOX_GOLDEN_DIR ?? path.join(repo, '..', 'shared', 'golden'), 'stories260K.greedy.jsonl');
export const stories = { model: path.join(modelsDir, 'stories260K.bin'), tokenizer: path.join(modelsDir, 'tok512.bin') };
export const cli = process.env.GLASSBOX_CLI ?? path.join(repo, 'build', 'glassbox');
const requireAll = process.env.GLASSBOX_REQUIRE_MODELS === '1';

/** Skips the test with a message when a file is absent, or fails when CI requires everything to run. */
export function requireFiles(t, ...files) {
  const missing = files.filter((f) => !fs.existsSync(f));
  if (missing.length === 0) return true;
  const message = `absent: ${missing.join(', ')} (build with scripts/build.sh, models with scripts/fetch-models.sh)`;
  if (requireAll) throw new Error(message);
  t.skip(message);
  return false;
}

export function readGolden() {
  return fs
    .readFileSync(goldenFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/** A fresh engine from the built module, with the .wasm bytes passed in (Node cannot fetch file paths). */
export async function createEngine() {
  const { default: createModule } = await import(path.join(wasmDir, 'glassbox-engine.mjs'));
  const { GlassboxEngine } = await import(path.join(repo, 'wasm', 'engine.js'));
  return GlassboxEngine.create(createModule, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'glassbox-engine.wasm')) });
}

/** An engine with stories260K and tok512 loaded, as the page loads them. */
export async function storiesEngine() {
  const { MODEL_SLOT, TOKENIZER_SLOT } = await import('../../wasm/engine.js');
  const engine = await createEngine();
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(stories.model), 'stories260K.bin');
  engine.uploadBytes(TOKENIZER_SLOT, fs.readFileSync(stories.tokenizer), 'tok512.bin');
  engine.load('stories260K.bin', 'tok512.bin');
  return engine;
}

/** The native CLI's inspection document (`glassbox inspect --json`) of stories260K for a prompt. */
export function nativeInspection(prompt, ...flags) {
  const args = ['inspect', '--model', stories.model, '--tokenizer', stories.tokenizer, '--prompt', prompt, '--json', ...flags.map(String)];
  return JSON.parse(execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 256 << 20 }));
}
