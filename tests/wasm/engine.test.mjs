// The WebAssembly engine as the page's worker uses it (Embind bindings + wasm/engine.js), run under Node:
// loading from bytes, tokenizing, step-wise greedy generation against llama2.c's golden tokens, the
// attention trace, GGUF with its own tokenizer, and errors that leave the engine usable.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine, goldenFile, modelsDir, readGolden, requireFiles, wasmDir } from './helpers.mjs';

const engineFile = path.join(wasmDir, 'glassbox-engine.mjs');
const bin = path.join(modelsDir, 'stories260K.bin');
const tok = path.join(modelsDir, 'tok512.bin');
const gguf = path.join(modelsDir, 'stories260K.gguf');

async function loadedEngine(modelFile = bin, tokenizerFile = tok) {
  const { MODEL_SLOT, TOKENIZER_SLOT } = await import('../../wasm/engine.js');
  const engine = await createEngine();
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(modelFile), path.basename(modelFile));
  if (tokenizerFile) engine.uploadBytes(TOKENIZER_SLOT, fs.readFileSync(tokenizerFile), path.basename(tokenizerFile));
  engine.load(path.basename(modelFile), tokenizerFile ? path.basename(tokenizerFile) : '');
  return engine;
}

function greedy(engine, prompt, steps) {
  engine.setSampler({ temperature: 0 });
  const promptIds = Array.from(engine.start(prompt));
  const ids = [];
  let text = '';
  const decoder = new TextDecoder();
  while (promptIds.length + ids.length - 1 < steps) {
    const s = engine.step();
    ids.push(s.id);
    text += decoder.decode(s.bytes, { stream: true });
    if (s.end) break;
  }
  return { promptIds, ids, text: text + decoder.decode() };
}

test('greedy generation from bytes gives the golden llama2.c tokens', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok, goldenFile)) return;
  const engine = await loadedEngine();
  const info = engine.info();
  assert.equal(info.parameters, 260032);
  assert.match(info.engine, /wasm-simd128/);
  for (const record of readGolden()) {
    const { promptIds, ids } = greedy(engine, record.prompt, record.steps);
    assert.deepEqual(promptIds, record.prompt_ids, `prompt ids of ${JSON.stringify(record.prompt)}`);
    assert.deepEqual(ids, record.generated_ids, `generated ids of ${JSON.stringify(record.prompt)}`);
  }
  engine.dispose();
});

test('the attention trace is causal and each row sums to 1', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  greedy(engine, 'Once upon a time', 30);
  const n = engine.sequence().length;
  const all = engine.attention(2, -1); // every head of layer 2
  assert.equal(all.size, n);
  assert.equal(all.matrix.length, 8 * n * n);
  for (let h = 0; h < 8; h++) {
    for (let q = 0; q < n; q++) {
      let sum = 0;
      for (let k = 0; k < n; k++) {
        const p = all.matrix[(h * n + q) * n + k];
        if (k > q) assert.equal(p, 0, `head ${h} row ${q} col ${k} is above the diagonal`);
        sum += p;
      }
      assert.ok(Math.abs(sum - 1) < 1e-5, `head ${h} row ${q} sums to ${sum}`);
    }
  }
  assert.throws(() => engine.attention(5, 0), /layer 5 does not exist \(0..4\)/);
  engine.dispose();
});

test('tokenize gives ids, byte spans and pieces', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  const tokens = engine.tokenize('Once upon a time 🙂');
  assert.deepEqual(tokens.map((x) => x.id).slice(0, 5), [1, 403, 407, 261, 378]);
  assert.deepEqual([tokens[1].begin, tokens[1].end], [0, 4]);
  assert.equal(new TextDecoder().decode(tokens[1].piece), ' Once');
  const bytes = tokens.slice(-4).map((x) => x.end - x.begin);
  assert.deepEqual(bytes, [1, 1, 1, 1], 'the emoji falls back to four one-byte tokens');
  engine.dispose();
});

test('a GGUF model loads with its own tokenizer and gives the same tokens', async (t) => {
  if (!requireFiles(t, engineFile, gguf, goldenFile)) return;
  const engine = await loadedEngine(gguf, null);
  assert.equal(engine.info().architecture, 'llama');
  assert.deepEqual(engine.formats(), ['llama2c', 'gguf']);
  const record = readGolden()[1];
  assert.deepEqual(greedy(engine, record.prompt, record.steps).ids, record.generated_ids);
  engine.dispose();
});

test('bad input raises errors that name the problem, and the engine keeps working', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const { MODEL_SLOT, TOKENIZER_SLOT } = await import('../../wasm/engine.js');
  const engine = await loadedEngine();
  const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
  engine.uploadBytes(MODEL_SLOT, junk, 'junk.bin');
  engine.uploadBytes(TOKENIZER_SLOT, fs.readFileSync(tok), 'tok512.bin');
  assert.throws(() => engine.load('junk.bin', 'tok512.bin'), /junk\.bin: not a model file glassbox can read/);
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(bin), 'stories260K.bin');
  assert.throws(() => engine.load('stories260K.bin', ''), /needs its tokenizer file/);
  assert.throws(() => engine.load('stories260K.bin', ''), /no bytes were uploaded for the model/);
  assert.throws(() => engine.setSampler({ temperature: -1 }), /temperature must be a finite number >= 0/);
  assert.throws(() => engine.setSampler({ topP: 0 }), /top-p must be in \(0, 1\]/);
  assert.throws(() => engine.beginUpload(MODEL_SLOT, 0, 'empty.bin'), /empty\.bin: the file is empty/);
  // The model loaded before the failures is still there and still generates.
  assert.equal(engine.info().parameters, 260032);
  assert.equal(greedy(engine, 'Once upon a time', 10).ids.length, 6);
  engine.dispose();
});
