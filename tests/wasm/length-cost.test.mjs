// Cost against length in the WebAssembly engine (wasm/bind_length_cost.cpp), as the page's anatomy plot asks
// for it: the plan (variants, their crossover, the lengths), one measured point at a time, the memory and the
// formulas the same numbers as the native CLI's `bench --lengths --json` (the same core; the scores' tiles
// are the kernels' own), bad input refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { cli, requireFiles, stories, storiesEngine, wasmDir } from './helpers.mjs';

test('length cost: the plan, measured points equal to the native ones in memory and formulas, errors', async (t) => {
  if (!requireFiles(t, stories.model, stories.tokenizer, cli, path.join(wasmDir, 'glassbox-engine.wasm'))) return;
  const engine = await storiesEngine();

  const plan = engine.lengthCostPlan();
  assert.equal(plan.context, 512);
  assert.deepEqual(plan.lengths, [16, 32, 64, 128, 256, 512]);
  assert.deepEqual(plan.variants.map((v) => v.attention), ['exact', 'window:128', 'linear']);
  assert.ok(plan.variants.every((v) => v.refused === ''));

  const native = JSON.parse(
    execFileSync(cli, ['bench', '--model', stories.model, '--lengths', '16,32', '--attention', 'exact,window:128,linear', '--repeat', '1', '--threads', '1', '--json'], { encoding: 'utf8' }),
  );
  for (const [i, variant] of native.variants.entries()) {
    assert.equal(plan.variants[i].crossoverLength, variant.crossover_length, variant.attention);
    for (const nativePoint of variant.points) {
      const point = engine.lengthCost(variant.attention, nativePoint.length, 1);
      assert.equal(point.attention, variant.attention);
      assert.equal(point.length, nativePoint.length);
      for (const spread of [point.prefillSeconds, point.tokenSeconds]) {
        assert.ok(spread.min > 0 && spread.min <= spread.median && spread.median <= spread.max, JSON.stringify(spread));
      }
      assert.equal(point.memory.kvCacheBytes, nativePoint.memory.kv_cache_bytes);
      // Scores: a row per head plus a tile of query rows, whose height is the kernels' (8 rows in WebAssembly
      // SIMD, 32 with AVX-512), so only their growth is the same: in proportion to n.
      assert.equal(point.memory.scoresBytes / nativePoint.length, engine.lengthCost(variant.attention, 16, 1).memory.scoresBytes / 16);
      assert.equal(point.memory.attentionStateBytes, nativePoint.memory.attention_state_bytes);
      assert.equal(point.formula.attentionPrompt, nativePoint.formula.attention_prompt);
      assert.equal(point.formula.feedForwardToken, nativePoint.formula.feed_forward_token);
      assert.equal(point.formula.stateBytes, nativePoint.formula.state_bytes);
    }
  }
  // 2 (keys and values) x 5 layers x 16 positions x kv_dim 32 x 4 bytes.
  assert.equal(engine.lengthCost('exact', 16, 1).memory.kvCacheBytes, 2 * 5 * 16 * 32 * 4);

  assert.throws(() => engine.lengthCost('window:0', 16, 1), (e) => e.code === 'bad-argument' && /window W must be 1/.test(e.message));
  assert.throws(() => engine.lengthCost('exact', 513, 1), (e) => e.code === 'bad-argument' && /model's context/.test(e.message));
  assert.throws(() => engine.lengthCost('low-rank:2', 16, 1), (e) => e.code === 'bad-argument' && /no per-token time/.test(e.message));
});
