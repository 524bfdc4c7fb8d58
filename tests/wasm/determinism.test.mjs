// Same model, prompt, sampler settings and seed give the same tokens natively and in WebAssembly: the
// native CLI (AVX2 or whatever this machine has) against the same CLI compiled to WASM SIMD128 under Node.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { modelsDir, repo, requireFiles, wasmDir } from './helpers.mjs';

const nativeCli = process.env.GLASSBOX_CLI ?? path.join(repo, 'build', 'glassbox');
const wasmCli = path.join(wasmDir, 'glassbox.js');

function run(command, args) {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

test('sampled text is identical natively and in WebAssembly', async (t) => {
  const model = path.join(modelsDir, 'stories260K.bin');
  const tokenizer = path.join(modelsDir, 'tok512.bin');
  if (!requireFiles(t, nativeCli, wasmCli, model, tokenizer)) return;
  for (const [prompt, seed, temperature] of [['Once upon a time', '7', '1.0'], ['The dog', '12345', '1.3'], ['', '1', '0.7']]) {
    const args = ['generate', '--model', model, '--tokenizer', tokenizer, '--prompt', prompt, '--seed', seed,
      '--temperature', temperature, '--top-p', '0.95', '--steps', '256'];
    const native = run(nativeCli, args);
    const wasm = run('node', ['--no-experimental-fetch', wasmCli, ...args]);
    assert.ok(native.length > 200, 'a real amount of text was generated');
    assert.equal(wasm, native, `prompt ${JSON.stringify(prompt)}, seed ${seed}, temperature ${temperature}`);
  }
});
