// Training in the WebAssembly engine (wasm/bind_train.cpp), as the page's training lab drives it: a synthetic
// task's text from the core (the same lines the native core writes for the same seed), a run from a config on
// the loaded model's tokenizer whose per-step losses are the native `glassbox train`'s on the same data and
// settings, the held-out loss and the induction scores, the weights as GGUF bytes that load, and errors.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cli, requireFiles, stories, storiesEngine, wasmDir } from './helpers.mjs';

const config = { architecture: 'llama', dim: 32, layers: 2, heads: 2, kv_heads: 2, hidden_dim: 64, context: 64 };
const settings = { steps: 8, batch: 4, context: 64, learningRate: 0.01, warmup: 2, seed: 42 };

test('train: the page trainer steps as the native one, reports per layer, measures heads, writes a GGUF', async (t) => {
  if (!requireFiles(t, stories.model, stories.tokenizer, cli, path.join(wasmDir, 'glassbox-engine.wasm'))) return;
  const engine = await storiesEngine();
  const data = engine.syntheticTask({ task: 'copy', lines: 200, length: 6, seed: 3, maxTokens: 64 });
  const lines = data.split('\n');
  assert.equal(lines.length, 200);
  const words = lines[0].split(' ');
  assert.deepEqual(words.slice(0, words.length / 2), words.slice(words.length / 2), 'a copy line repeats its first half');

  const run = engine.trainBegin(JSON.stringify(config), data, settings);
  assert.equal(run.layers, 2);
  assert.equal(run.heads, 2);
  const before = engine.trainInduction();
  assert.equal(before.length, 4, 'one induction score per head');
  const reports = [];
  for (let i = 0; i < settings.steps; i++) reports.push(engine.trainStep());
  assert.ok(reports.every((r) => r.layerGradNorms.length === 2 && r.tokens > 0 && r.seconds > 0));
  assert.ok(reports.at(-1).loss < reports[0].loss - 0.5, `the loss falls: ${reports[0].loss} -> ${reports.at(-1).loss}`);
  const heldOut = engine.trainHeldOut(engine.syntheticTask({ task: 'copy', lines: 16, length: 6, seed: 4, maxTokens: 64 }));
  assert.ok(Number.isFinite(heldOut) && heldOut < reports[0].loss);
  assert.throws(() => engine.trainStep(), /all 8 steps are done/);

  // The native trainer on the same lines and settings: the same losses (the same core; the score's products
  // may round differently in SIMD128 and on this CPU, so to 1e-4).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-train-wasm-'));
  try {
    fs.writeFileSync(path.join(dir, 'data.txt'), data);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
    const out = execFileSync(
      cli,
      ['train', '--config', path.join(dir, 'config.json'), '--tokenizer', stories.tokenizer, '--data', path.join(dir, 'data.txt'), '--steps', '8', '--batch', '4', '--context', '64', '--lr', '0.01', '--warmup', '2', '--seed', '42', '--threads', '1', '--output', path.join(dir, 'out.gguf'), '--json'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const native = out.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((r) => 'loss' in r);
    assert.equal(native.length, 8);
    for (const [i, r] of native.entries()) assert.ok(Math.abs(r.loss - reports[i].loss) < 1e-4, `step ${i}: native ${r.loss}, wasm ${reports[i].loss}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const bytes = engine.trainGguf('trained');
  assert.equal(Buffer.from(bytes.subarray(0, 4)).toString('latin1'), 'GGUF');
  engine.trainEnd();
  assert.throws(() => engine.trainStep(), /no training run/);
  assert.throws(() => engine.syntheticTask({ task: 'sorting' }), /unknown synthetic task "sorting"/);
  assert.throws(() => engine.trainBegin(JSON.stringify({ ...config, heads: 3 }), data, settings));
  assert.throws(() => engine.trainBegin(JSON.stringify(config), '\n\n', settings), /empty/);
});
