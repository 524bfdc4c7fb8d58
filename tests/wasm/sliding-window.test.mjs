// Gemma 3's sliding-window layers in the WebAssembly engine, as the page sees them: the model's info says
// which layers slide, attention() gives each query row's first visible key (the core's rule), the weights
// outside the window are exactly 0 and each visible row sums to 1, and a global layer sees every key.
// The file is the NumPy reference's gemma3-tiny fixture (window 3, layer 0 slides, layer 1 is global).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine, repo, requireFiles, wasmDir } from './helpers.mjs';

const fixture = path.join(process.env.GLASSBOX_FIXTURES_DIR ?? path.join(repo, 'build', 'fixtures'), 'gemma3-tiny.gguf');

test('gemma3: sliding-window layers are masked outside their window, and say so', async (t) => {
  if (!requireFiles(t, fixture, path.join(wasmDir, 'glassbox-engine.wasm'))) return;
  const { MODEL_SLOT } = await import('../../wasm/engine.js');
  const engine = await createEngine();
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(fixture), 'gemma3-tiny.gguf');
  engine.load('gemma3-tiny.gguf');
  const info = engine.info();
  assert.equal(info.architecture, 'gemma3');
  assert.equal(info.normPlacement, 'sandwich');
  assert.equal(info.slidingWindow, 3);
  assert.deepEqual(info.slidingLayers, [true, false]);

  engine.setSampler({ temperature: 0 });
  engine.start('ab', { maxTokens: 8 });
  for (let i = 0; i < 8 && !engine.step().end; i++);
  const n = engine.traceInfo().positions;
  assert.ok(n > 4, `enough positions to outgrow the window (${n})`);

  for (const layer of [0, 1]) {
    const { size, matrix, firstVisible } = engine.attention(layer, 0);
    assert.equal(size, n);
    for (let q = 0; q < n; q++) {
      const first = layer === 0 ? Math.max(0, q - 2) : 0;
      assert.equal(firstVisible[q], first, `layer ${layer}, row ${q}: first visible key`);
      let sum = 0;
      for (let k = 0; k <= q; k++) {
        const w = matrix[q * n + k];
        if (k < first) assert.equal(w, 0, `layer ${layer}, row ${q}, key ${k} lies outside the window`);
        else assert.ok(w > 0, `layer ${layer}, row ${q}, key ${k} is visible`);
        sum += w;
      }
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${q} sums to ${sum}`);
    }
  }
  const detail = engine.attentionDetail(0, 1, n - 1);
  assert.equal(detail.firstVisibleKey, n - 3);
  assert.equal(engine.positionInfo().slidingLayers, 1);
  // The sliding layer turns with its own base (1e4, unscaled) and the global one with 1e6 scaled by 8.
  const slidingAngle = engine.ropeAngles(5, 0)[1];
  const globalAngle = engine.ropeAngles(5, 1)[1];
  assert.ok(Math.abs(slidingAngle - 5 * 10000 ** (-2 / 16)) < 1e-5, `sliding angle ${slidingAngle}`);
  assert.ok(Math.abs(globalAngle - (5 * 1e6 ** (-2 / 16)) / 8) < 1e-5, `global angle ${globalAngle}`);
});
