// The WebAssembly engine as the page's worker uses it (Embind bindings + wasm/engine.js), run under Node:
// loading from bytes, tokenizing, step-wise greedy generation against llama2.c's golden tokens, the
// attention trace, GGUF with its own tokenizer, errors with stable codes that leave the engine usable, the
// core's generation rules (prompt length, the reasons a generation ends), sampler defaults and version.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine, goldenFile, modelsDir, readGolden, repo, requireFiles, wasmDir } from './helpers.mjs';

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

/** Runs a generation to its end, as the page's worker does: start, then step until the engine says end. */
function run(engine, prompt, limits = {}) {
  const promptIds = Array.from(engine.start(prompt, limits));
  const ids = [];
  let text = '';
  let last;
  const decoder = new TextDecoder();
  do {
    last = engine.step();
    ids.push(last.id);
    text += decoder.decode(last.bytes, { stream: true });
  } while (!last.end);
  return { promptIds, ids, text: text + decoder.decode(), reason: last.reason, last };
}

/** Greedy, with llama2.c's step budget (forward passes, prompt included), which the core enforces. */
function greedy(engine, prompt, steps) {
  engine.setSampler({ temperature: 0 });
  return run(engine, prompt, { maxSteps: steps });
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
  // The engine's head statistics are those of the rows it returned.
  for (let h = 0; h < 8; h++) {
    let entropy = 0;
    for (let q = 0; q < n; q++)
      for (let k = 0; k <= q; k++) {
        const p = all.matrix[(h * n + q) * n + k];
        if (p > 0) entropy -= p * Math.log2(p);
      }
    assert.ok(Math.abs(all.stats[3 * h] - entropy / n) < 1e-4, `head ${h} entropy ${all.stats[3 * h]} vs ${entropy / n}`);
  }
  // A window [begin, end) is the same numbers as the whole, cut to it.
  const begin = n - 7;
  const window = engine.attention(2, 3, begin, n);
  assert.equal(window.begin, begin);
  assert.equal(window.size, 7);
  for (let q = 0; q < 7; q++)
    for (let k = 0; k < 7; k++) assert.equal(window.matrix[q * 7 + k], all.matrix[(3 * n + begin + q) * n + begin + k]);
  assert.throws(() => engine.attention(5, 0), /layer 5 does not exist \(0..4\)/);
  assert.throws(() => engine.attention(0, 0, 0, n + 1), { code: 'bad-argument' });
  const trace = engine.traceInfo();
  assert.equal(trace.positions, n);
  assert.equal(trace.firstKept, 0);
  assert.equal(trace.bytesPerPosition, (5 + 1) * 64 * 4);
  assert.ok(trace.bytesHeld >= n * trace.bytesPerPosition && trace.bytesHeld <= trace.budgetBytes);
  assert.ok(engine.memoryBytes() >= trace.bytesHeld);
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
  assert.throws(() => engine.load('junk.bin', 'tok512.bin'), { code: 'not-a-model', message: /^junk\.bin: not a model file glassbox can read/ });
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(bin), 'stories260K.bin');
  assert.throws(() => engine.load('stories260K.bin', ''), { code: 'tokenizer-needed', message: /^stories260K\.bin: .*needs its tokenizer file/ });
  assert.throws(() => engine.load('stories260K.bin', ''), { code: 'invalid-state', message: /no bytes were uploaded for the model/ });
  assert.throws(() => engine.setSampler({ temperature: -1 }), { code: 'bad-argument', message: /temperature must be a finite number >= 0/ });
  assert.throws(() => engine.setSampler({ topP: 0 }), { code: 'bad-argument', message: /top-p must be in \(0, 1\]/ });
  assert.throws(() => engine.setSampler({ seed: 1.5 }), { code: 'bad-argument' });
  assert.throws(() => engine.beginUpload(MODEL_SLOT, 0, 'empty.bin'), { code: 'not-a-model', message: /^empty\.bin: the file is empty/ });
  assert.throws(() => engine.beginUpload(TOKENIZER_SLOT, 0, 'empty.tok'), { code: 'not-a-tokenizer' });
  assert.throws(() => engine.beginUpload(MODEL_SLOT, 2 ** 33, 'huge.bin'), { code: 'out-of-memory', message: /^huge\.bin: / });
  // largestUpload() is the limit the uploads apply (the page marks catalog entries past it): one rule.
  const largest = engine.largestUpload();
  assert.equal(largest, 2 ** 32 - 1);
  assert.throws(() => engine.beginUpload(MODEL_SLOT, largest + 1, 'past.bin'), { code: 'out-of-memory', message: /more than the WebAssembly heap can hold/ });
  assert.throws(() => engine.beginUpload(2, 10, 'x.bin'), { code: 'bad-argument' });
  const upload = engine.beginUpload(MODEL_SLOT, 4, 'short.bin');
  upload.write(new Uint8Array(3));
  assert.throws(() => upload.finish(), { code: 'truncated' });
  assert.throws(() => upload.write(new Uint8Array(2)), { code: 'io' });
  engine.clearUpload(MODEL_SLOT);
  assert.throws(() => engine.attention(5, 0), { code: 'bad-argument', message: /layer 5 does not exist \(0..4\)/ });
  assert.throws(() => engine.piece(512), { code: 'bad-argument' });
  // The model loaded before the failures is still there and still generates.
  assert.equal(engine.info().parameters, 260032);
  assert.equal(greedy(engine, 'Once upon a time', 10).ids.length, 6);
  engine.dispose();
});

test('every error carries a stable code: loading, prompts, calls out of order', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const { GlassboxError, MODEL_SLOT } = await import('../../wasm/engine.js');
  const fresh = await createEngine();
  const code = (fn) => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof GlassboxError, `${error} is a GlassboxError`);
      return error.code;
    }
    assert.fail('no error was thrown');
  };
  // Nothing loaded yet.
  assert.equal(code(() => fresh.info()), 'invalid-state');
  assert.equal(code(() => fresh.start('Once')), 'invalid-state');
  assert.equal(code(() => fresh.step()), 'invalid-state');
  assert.equal(code(() => fresh.tokenize('Once')), 'invalid-state');
  assert.equal(fresh.stop(), null, 'no generation to stop');
  // Junk bytes as a model; a llama2.c checkpoint without its tokenizer.
  fresh.uploadBytes(MODEL_SLOT, new Uint8Array(20000).map((_, i) => (i * 31) % 256), 'photo.jpg');
  assert.equal(code(() => fresh.load('photo.jpg')), 'not-a-model');
  fresh.uploadBytes(MODEL_SLOT, fs.readFileSync(bin), 'stories260K.bin');
  assert.equal(code(() => fresh.load('stories260K.bin')), 'tokenizer-needed');
  fresh.dispose();

  const engine = await loadedEngine();
  const context = engine.info().contextLength;
  // step() before start(), and after the end.
  assert.equal(code(() => engine.step()), 'invalid-state');
  engine.setSampler({ temperature: 0 });
  const short = run(engine, 'Once upon a time', { maxTokens: 3 });
  assert.deepEqual([short.ids.length, short.reason], [3, 'length']);
  assert.equal(code(() => engine.step()), 'invalid-state');
  assert.equal(code(() => engine.start('Once', { maxTokens: -1 })), 'bad-argument');
  assert.equal(code(() => engine.start('Once', { maxTokens: 2.5 })), 'bad-argument');
  assert.equal(code(() => engine.start('Once upon a time', { maxSteps: 2 })), 'bad-argument', 'fewer steps than prompt tokens');
  // A prompt longer than the context.
  const long = 'the cat sat on the mat. '.repeat(120);
  assert.ok(engine.tokenize(long).length > context);
  assert.throws(() => engine.start(long), { code: 'prompt-too-long', message: new RegExp(`the prompt is ${engine.tokenize(long).length} tokens, more than the context of ${context}`) });
  engine.dispose();
});

test('the prompt may fill the context: one token follows, and the generation ends with context-full', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  const context = engine.info().contextLength;
  // " a" is one token in this vocabulary: BOS, "a", then n times " a".
  const prompt = (n) => 'a' + ' a'.repeat(n);
  assert.equal(engine.tokenize(prompt(context - 2)).length, context);
  engine.setSampler({ temperature: 0 });
  const full = run(engine, prompt(context - 2));
  assert.equal(full.promptIds.length, context);
  assert.equal(full.ids.length, 1);
  assert.equal(full.reason, 'context-full');
  assert.equal(full.last.position, context - 1, 'drawn from the last position');
  assert.throws(() => engine.start(prompt(context - 1)), { code: 'prompt-too-long' });
  engine.dispose();
});

test('generation runs to the end of the context, and each end has its reason', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  const context = engine.info().contextLength;
  // From an empty prompt (BOS alone) at temperature 1, seed 42, stories260K writes until its context is full.
  engine.setSampler({ temperature: 1, topK: 0, topP: 1, seed: 42 });
  const result = run(engine, '');
  assert.deepEqual(result.promptIds, [engine.info().bosId]);
  assert.equal(result.reason, 'context-full');
  assert.equal(result.ids.length, context, 'every position of the context was used');
  assert.equal(result.last.position, context - 1);
  assert.equal(engine.sequence().length, context, 'the trace covers the whole context');
  // Stop: the engine ends the generation at once and says so.
  engine.start('Once upon a time');
  const first = engine.step();
  assert.deepEqual([first.end, first.reason], [false, null]);
  assert.equal(engine.stop(), 'stopped');
  assert.throws(() => engine.step(), { code: 'invalid-state' });
  assert.equal(engine.stop(), 'stopped', 'stopping twice changes nothing');
  // End of text: the model's own end token ends the text, adding no bytes.
  let ended = null;
  for (let seed = 1; seed <= 40 && !ended; seed++) {
    engine.setSampler({ seed });
    const r = run(engine, 'Once upon a time', { maxTokens: 300 });
    if (r.reason === 'end-of-text') ended = r;
  }
  assert.ok(ended, 'some seed ends the story with the end-of-text token');
  assert.equal(ended.last.bytes.length, 0);
  assert.ok([engine.info().eosId, engine.info().bosId].includes(ended.last.id));
  engine.dispose();
});

test('setSampler fills missing fields from samplerDefaults(), the core\'s one set of defaults', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  const defaults = engine.samplerDefaults();
  assert.deepEqual(Object.keys(defaults).sort(), ['seed', 'temperature', 'topK', 'topP']);
  assert.ok(Number.isInteger(defaults.seed) && Number.isInteger(defaults.topK));
  assert.deepEqual(engine.setSampler({}), defaults, 'nothing given: the defaults, exactly as the core holds them');
  assert.deepEqual(engine.setSampler({ topK: undefined, seed: undefined }), defaults, 'undefined fields count as missing');
  assert.deepEqual(engine.setSampler(), defaults);
  assert.deepEqual(engine.setSampler({ seed: 7 }), { ...defaults, seed: 7 });
  // The same text from: no setSampler at all (a fresh engine), setSampler({}), and the defaults spelled out.
  const texts = [];
  const untouched = await loadedEngine();
  texts.push(run(untouched, 'Once upon a time', { maxTokens: 40 }).ids);
  untouched.dispose();
  engine.setSampler({});
  texts.push(run(engine, 'Once upon a time', { maxTokens: 40 }).ids);
  engine.setSampler(defaults);
  texts.push(run(engine, 'Once upon a time', { maxTokens: 40 }).ids);
  assert.deepEqual(texts[1], texts[0]);
  assert.deepEqual(texts[2], texts[0]);
  // And each start() samples from the seed again: the same settings give the same text twice.
  texts.push(run(engine, 'Once upon a time', { maxTokens: 40 }).ids);
  assert.deepEqual(texts[3], texts[0]);
  engine.dispose();
});

test('version and build come from CMake\'s project(), and errorCodes() matches engine.d.ts', async (t) => {
  if (!requireFiles(t, engineFile)) return;
  const engine = await createEngine();
  const cmake = fs.readFileSync(path.join(repo, 'CMakeLists.txt'), 'utf8');
  const projectVersion = /project\(glassbox VERSION ([\d.]+)/.exec(cmake)[1];
  assert.equal(engine.version(), projectVersion);
  assert.match(engine.buildDescription(), new RegExp(`^glassbox ${projectVersion.replaceAll('.', '\\.')}, .*wasm-simd128`));
  // The ErrorCode union that TypeScript users see lists exactly the codes the core has.
  const declarations = fs.readFileSync(path.join(repo, 'wasm', 'engine.d.ts'), 'utf8');
  const union = /export type ErrorCode =([^;]*);/.exec(declarations)[1];
  const declared = [...union.matchAll(/\| '([a-z-]+)'/g)].map((m) => m[1]);
  assert.deepEqual(declared, engine.errorCodes());
  assert.ok(engine.errorCodes().includes('prompt-too-long'));
  engine.dispose();
});

test('foreignBytes() and isGguf() are the core\'s rule on a file\'s first bytes', async (t) => {
  const bin = path.join(modelsDir, 'stories260K.bin');
  const gguf = path.join(modelsDir, 'stories260K.gguf');
  const tok = path.join(modelsDir, 'tok512.bin');
  if (!requireFiles(t, path.join(wasmDir, 'glassbox-engine.mjs'), bin, gguf, tok)) return;
  const engine = await createEngine();
  const n = engine.foreignBytesHead();
  assert.equal(n, 64);
  const head = (file) => new Uint8Array(fs.readFileSync(file).subarray(0, n));
  const text = (s) => new Uint8Array(Buffer.from(s));
  // Real files may be what they claim.
  assert.equal(engine.foreignBytes(head(bin), 'model'), null);
  assert.equal(engine.foreignBytes(head(gguf), 'model'), null);
  assert.equal(engine.foreignBytes(head(tok), 'tokenizer'), null);
  assert.equal(engine.isGguf(head(gguf)), true);
  assert.equal(engine.isGguf(head(bin)), false);
  // Plainly foreign bytes, named by kind, with the same words open_model uses.
  const page = engine.foreignBytes(text('\ufeff\n <!DOCTYPE html><html><body>404</body></html>'), 'tokenizer');
  assert.equal(page.kind, 'web-page');
  assert.match(page.description, /^it is a web page \(HTML\)/);
  assert.equal(engine.foreignBytes(text('version https://git-lfs.github.com/spec/v1\n'), 'model').kind, 'git-lfs-pointer');
  assert.equal(engine.foreignBytes(new Uint8Array(0), 'model').kind, 'empty');
  const other = engine.foreignBytes(text('Entry not found\n'), 'model');
  assert.equal(other.kind, 'text');
  assert.match(other.description, /it starts "Entry not found"/);
  // Text may be a tokenizer (tokenizer.json).
  assert.equal(engine.foreignBytes(text('{"model": {"type": "BPE"}}'), 'tokenizer'), null);
});

test('threads: the core rule\'s choice and its reason through the bindings, the setting kept, each step\'s count', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const { createEngine: fresh } = await import('./helpers.mjs');
  const empty = await fresh();
  assert.equal(empty.setThreads(2, true), null, 'no model yet: the setting waits for one');
  assert.throws(() => empty.threadChoice(1), (e) => e.code === 'invalid-state');
  const engine = await loadedEngine();
  // The single-threaded build started one thread: every setting runs on it, and says so.
  assert.deepEqual(engine.threadChoice(1), { threads: 1, why: '1 thread: the most this setting allows', automatic: true, limit: 1, most: 1 });
  assert.deepEqual(engine.setThreads(4, false), { threads: 1, why: '1 thread: as chosen (auto would use 1)', automatic: false, limit: 1, most: 1 });
  const { last } = run(engine, 'Once upon a time', { maxTokens: 3 });
  assert.equal(last.threads, 1, 'each step says the threads its pass ran on');
  engine.dispose();
  empty.dispose();
});
