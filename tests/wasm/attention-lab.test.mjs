// The attention lab's binding under Node against the native CLI: its KL per position, top-1 agreement and
// losses are `glassbox score --attention --json`'s (the same core numbers, natively and in WebAssembly), its
// exact matrix is the generation's own attention, and bad requests come back as errors that name the problem.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { cli, requireFiles, stories, storiesEngine, wasmDir } from './helpers.mjs';

const engineFile = path.join(wasmDir, 'glassbox-engine.mjs');
const TEXT = 'Once upon a time, there was a little girl named Lily.';

function nativeScore(variant) {
  const out = execFileSync(cli, ['score', '--model', stories.model, '--tokenizer', stories.tokenizer, '--text', TEXT, '--attention', variant, '--json'], { encoding: 'utf8' });
  return JSON.parse(out);
}

for (const variant of ['window:4', 'global-window:1,3', 'linear', 'performer:16', 'low-rank:3']) {
  test(`attentionLab(${variant}) gives the native score's comparison`, async (t) => {
    if (!requireFiles(t, engineFile, stories.model, stories.tokenizer, cli)) return;
    const engine = await storiesEngine();
    const native = nativeScore(variant);
    const ids = native.tokens.map((token) => token.id);
    const lab = engine.attentionLab(ids, variant, { layer: 1, head: 2, topK: 4, continueTokens: 5 });
    assert.equal(lab.n, ids.length);
    assert.equal(lab.comparedFrom, 0);
    // The native comparison covers the positions that predict a token of the text; the lab adds the last.
    const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 + 1e-6 * Math.abs(b), `${what}: ${a} against ${b}`);
    const against = native.against_exact;
    against.kl.forEach((kl, i) => close(lab.klByPosition[i], kl, `KL at ${i}`));
    assert.deepEqual(lab.topAgreesByPosition.slice(0, -1), against.top_agrees);
    close(lab.variantLoss, native.loss, 'the variant loss');
    close(lab.exactLoss, against.exact_loss, 'the exact loss');
    assert.equal(lab.exactTop.length, 4);
    assert.equal(lab.exactContinuation.length, 5);
    if (variant.startsWith('low-rank')) {
      assert.equal(lab.variantContinuation.length, 0);
      assert.match(lab.variantCannotContinue, /whole attention matrix/);
      assert.ok(lab.energyKept > 0 && lab.energyKept < 1);
    } else {
      assert.equal(lab.variantContinuation.length, 5);
      assert.equal(lab.variantCannotContinue, '');
    }
  });
}

test('the lab\'s exact matrix is the generation\'s attention, and bad requests name what is wrong', async (t) => {
  if (!requireFiles(t, engineFile, stories.model, stories.tokenizer)) return;
  const engine = await storiesEngine();
  engine.start(TEXT, { maxTokens: 6 });
  for (;;) if (engine.step().end) break;
  const ids = Array.from(engine.sequence());
  const n = ids.length - 1; // the newest token is read with the next step
  const lab = engine.attentionLab(ids.slice(0, n), 'window:3', { layer: 2, head: 0 });
  const trace = engine.attention(2, 0, 0, n);
  for (let i = 0; i < n * n; i++) assert.ok(Math.abs(lab.exact[i] - trace.matrix[i]) <= 1e-6, `cell ${i}`);
  assert.throws(() => engine.attentionLab(ids, 'window:0'), /window/);
  assert.throws(() => engine.attentionLab(ids, 'sparse:3'), /sparse/);
  assert.throws(() => engine.attentionLab(ids, 'performer:100000'), /4096/);
  assert.throws(() => engine.attentionLab(ids, 'linear', { layer: 9 }), /layer 9 head 0 is outside/);
  assert.throws(() => engine.attentionLab(ids, 'linear', { head: 1.5 }), /head is not a whole number/);
  assert.throws(() => engine.attentionLab([], 'linear'), /no tokens/);
  assert.throws(() => engine.attentionLab([1, 99999], 'linear'), /outside the vocabulary/);
});
