// An encoder (BERT) in the WebAssembly engine, as the page's worker uses it: info() says it is one, embed()
// and fillMask() give the numbers the native CLI prints (`glassbox embed --json`, `glassbox fill-mask
// --json`: the same core functions), and what cannot be done is refused by code with words that say why.
// The files are the NumPy reference's tiny BERT fixtures, with and without the MLM head.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cli, createEngine, repo, requireFiles, stories, wasmDir } from './helpers.mjs';

const fixtures = process.env.GLASSBOX_FIXTURES_DIR ?? path.join(repo, 'build', 'fixtures');
const withHead = path.join(fixtures, 'bert-tiny-mlm.gguf');
const withoutHead = path.join(fixtures, 'bert-tiny.gguf');
const wasm = path.join(wasmDir, 'glassbox-engine.wasm');

async function engineWith(file) {
  const { MODEL_SLOT } = await import('../../wasm/engine.js');
  const engine = await createEngine();
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(file), path.basename(file));
  engine.load(path.basename(file));
  return engine;
}

function native(...args) {
  return JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));
}

/** Calls fn, which must throw a GlassboxError with `code` and every one of `words` in its message. */
function assertRefused(fn, code, ...words) {
  assert.throws(fn, (e) => {
    assert.equal(e.name, 'GlassboxError');
    assert.equal(e.code, code, e.message);
    for (const w of words) assert.ok(e.message.includes(w), `"${w}" in "${e.message}"`);
    return true;
  });
}

test('fillMask: the same ids, pieces and probabilities as glassbox fill-mask', async (t) => {
  if (!requireFiles(t, withHead, wasm, cli)) return;
  const engine = await engineWith(withHead);
  const info = engine.info();
  assert.equal(info.encoder, true);
  assert.equal(info.maskedLm, true);
  const text = 'the [MASK] sat on the [MASK]';
  const filled = engine.fillMask(text, 4);
  const expected = native('fill-mask', '--model', withHead, '--text', text, '--top-k', '4');
  assert.deepEqual(Array.from(filled.tokens), expected.tokens);
  assert.equal(filled.masks.length, 2);
  filled.masks.forEach((mask, i) => {
    assert.equal(mask.position, expected.masks[i].position);
    assert.equal(mask.candidates.length, 4);
    mask.candidates.forEach((c, k) => {
      const e = expected.masks[i].candidates[k];
      assert.equal(c.id, e.id);
      assert.equal(c.piece, e.piece);
      assert.ok(Math.abs(c.probability - e.probability) <= 1e-5, `${c.probability} vs ${e.probability}`);
    });
  });
});

test('embed: the same embeddings and similarities as glassbox embed, in one padded batch', async (t) => {
  if (!requireFiles(t, withoutHead, wasm, cli)) return;
  const engine = await engineWith(withoutHead);
  assert.equal(engine.info().encoder, true);
  assert.equal(engine.info().maskedLm, false);
  const texts = ['the cat sat', 'the cat sat on the mat', 'a dog'];
  for (const pooling of ['mean', 'cls']) {
    const result = engine.embed(texts, { pooling });
    const expected = native('embed', '--model', withoutHead, ...texts.flatMap((x) => ['--text', x]), '--pooling', pooling);
    assert.equal(result.pooling, pooling);
    assert.deepEqual(result.tokens.map((ids) => Array.from(ids)), expected.tokens);
    result.embeddings.forEach((e, i) => {
      assert.equal(e.length, expected.embeddings[i].length);
      e.forEach((v, k) => assert.ok(Math.abs(v - expected.embeddings[i][k]) <= 1e-5, `${pooling} text ${i} value ${k}`));
    });
    result.similarity.forEach((row, a) => row.forEach((v, b) => assert.ok(Math.abs(v - expected.similarity[a][b]) <= 1e-5)));
    assert.ok(Math.abs(result.similarity[1][1] - 1) <= 1e-6);
  }
});

test('encoderAttention: a text of a padded batch reads as glassbox inspect reads it alone', async (t) => {
  if (!requireFiles(t, withHead, wasm)) return;
  const engine = await engineWith(withHead);
  const texts = ['the cat sat', 'the cat sat on the mat by the door', 'a [MASK] cat'];
  const longest = Math.max(...texts.map((text) => engine.embed([text]).tokens[0].length));
  for (const index of [0, 1]) {
    const a = engine.encoderAttention(texts, index);
    const alone = native('inspect', '--model', withHead, '--prompt', texts[index]);
    assert.deepEqual(Array.from(a.tokens), alone.tokens.map((token) => token.id));
    assert.equal(a.length, a.tokens.length);
    assert.equal(a.stride, longest);
    assert.equal(a.texts, 3);
    const { stride, length, heads } = a;
    for (let layer = 0; layer < a.layers; layer++)
      for (let head = 0; head < heads; head++)
        for (let q = 0; q < stride; q++)
          for (let k = 0; k < stride; k++) {
            const w = a.matrix[((layer * heads + head) * stride + q) * stride + k];
            if (q >= length || k >= length) assert.equal(w, 0, `padding ${layer}.${head} [${q}][${k}]`);
            else assert.ok(Math.abs(w - alone.attention[layer][head][q][k]) <= 1e-5, `text ${index} ${layer}.${head} [${q}][${k}]`);
          }
    assert.deepEqual(a.headReports.map((h) => h.role), alone.heads.map((h) => h.role));
    a.headReports.forEach((h, i) => assert.ok(Math.abs(h.separator - alone.heads[i].separator) <= 1e-5));
  }
  // With parseSpecial, [MASK] is the mask token, as fill-mask reads it; in the batch the bits it has alone.
  const masked = engine.encoderAttention(texts, 2, { parseSpecial: true });
  assert.deepEqual(masked.tokens, engine.fillMask(texts[2]).tokens);
  const maskedAlone = engine.encoderAttention([texts[2]], 0, { parseSpecial: true });
  const n = masked.length;
  for (let i = 0; i < masked.layers * masked.heads; i++)
    for (let q = 0; q < n; q++)
      for (let k = 0; k < n; k++)
        assert.equal(masked.matrix[(i * masked.stride + q) * masked.stride + k], maskedAlone.matrix[(i * n + q) * n + k]);
  assertRefused(() => engine.encoderAttention(texts, 3), 'bad-argument', 'text 3 of 3');
});

test('setEncoderHeadScales: every task reads the ablated run; fillMask compares as glassbox fill-mask --ablate', async (t) => {
  if (!requireFiles(t, withHead, wasm)) return;
  const engine = await engineWith(withHead);
  const { layers, heads } = engine.info();
  const text = 'the [MASK] sat on the [MASK]';
  const plain = engine.fillMask(text, 4);
  const embedded = engine.embed(['the cat sat']).embeddings[0];
  const scales = new Float32Array(layers * heads).fill(1);
  scales[0] = 0; // 0.0
  scales[heads + 2] = 0.5; // 1.2=0.5
  assert.equal(engine.setEncoderHeadScales(scales), 2);
  const ablated = engine.fillMask(text, 4);
  const expected = native('fill-mask', '--model', withHead, '--text', text, '--top-k', '4', '--ablate', '0.0,1.2=0.5');
  ablated.masks.forEach((mask, i) => {
    assert.deepEqual(mask.candidates.map((c) => c.id), expected.masks[i].candidates.map((c) => c.id));
    assert.deepEqual(mask.before.map((c) => c.id), plain.masks[i].candidates.map((c) => c.id));
    assert.ok(Math.abs(mask.klBits - expected.masks[i].kl_bits) <= 1e-4, `mask ${i}: ${mask.klBits} against ${expected.masks[i].kl_bits}`);
    assert.ok(mask.klBits > 0);
  });
  assert.notDeepEqual(Array.from(engine.embed(['the cat sat']).embeddings[0]), Array.from(embedded), 'embed reads the ablated run too');
  assertRefused(() => engine.setEncoderHeadScales([1, 0]), 'bad-argument', 'values for a model');
  assert.ok(engine.fillMask(text, 4).masks[0].before, 'a refused table leaves the ablation in force');
  assert.equal(engine.setEncoderHeadScales([]), 0);
  const again = engine.fillMask(text, 4);
  assert.equal(again.masks[0].before, undefined);
  assert.deepEqual(again.masks.map((m) => m.candidates), plain.masks.map((m) => m.candidates));
});

test('an encoder refuses what it cannot do, by code, in words', async (t) => {
  if (!requireFiles(t, withHead, withoutHead, wasm)) return;
  const engine = await engineWith(withoutHead);
  assertRefused(() => engine.fillMask('the [MASK] sat'), 'bad-argument', 'no masked-language-model head');
  assertRefused(() => engine.start('the cat'), 'bad-argument', 'encoder', 'use embed or fill-mask');
  assertRefused(() => engine.embed([]), 'bad-argument', 'no texts');
  assertRefused(() => engine.embed(['the cat'], { pooling: 'max' }), 'bad-argument', 'pooling');
  const withMlm = await engineWith(withHead);
  assertRefused(() => withMlm.fillMask('the cat sat'), 'bad-argument', 'no [MASK] to fill');
  const positions = withMlm.info().maxSeqLen;
  assertRefused(() => withMlm.fillMask('the '.repeat(positions) + '[MASK]'), 'bad-argument', 'positions');
  assertRefused(() => withMlm.embed(['the '.repeat(positions)]), 'bad-argument', 'positions');
  // After the errors the engine still answers.
  assert.equal(withMlm.fillMask('the [MASK] sat').masks.length, 1);
});

test('a decoder after an encoder generates as before, and refuses the encoder tasks', async (t) => {
  if (!requireFiles(t, withHead, wasm, stories.model, stories.tokenizer)) return;
  const { MODEL_SLOT, TOKENIZER_SLOT } = await import('../../wasm/engine.js');
  const engine = await engineWith(withHead);
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(stories.model), 'stories260K.bin');
  engine.uploadBytes(TOKENIZER_SLOT, fs.readFileSync(stories.tokenizer), 'tok512.bin');
  const info = engine.load('stories260K.bin', 'tok512.bin');
  assert.equal(info.encoder, false);
  assert.equal(info.maskedLm, false);
  engine.setSampler({ temperature: 0 });
  engine.start('Once upon a time', { maxTokens: 4 });
  assert.equal(typeof engine.step().id, 'number');
  assertRefused(() => engine.embed(['a text']), 'bad-argument', 'decoder');
  assertRefused(() => engine.fillMask('a [MASK]'), 'bad-argument', 'decoder');
  // And back to an encoder.
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(withHead), 'bert-tiny-mlm.gguf');
  assert.equal(engine.load('bert-tiny-mlm.gguf').encoder, true);
  assert.equal(engine.fillMask('the [MASK] sat').masks.length, 1);
});
