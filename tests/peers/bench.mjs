#!/usr/bin/env node
// Speed of glassbox next to llama.cpp, in one run on this machine, written to docs/benchmarks.md:
//   native:  `glassbox bench` against llama.cpp's own `llama-bench`, built from the llama.cpp source that
//            node-llama-cpp ships (scripts/build-llama-peers.sh), at 1 and 2 threads, a 32- and a 256-token
//            prompt, then 224 generated tokens; the two taken in turn, so ratios are of the same moments
//   browser: glassbox's WebAssembly engine against wllama (llama.cpp compiled to WebAssembly), both in
//            headless Chromium on the same page, at the same thread counts (past 1: glassbox's pthreads build
//            and wllama's multi-thread build, on a page served with COOP/COEP)
//   roofline: generation tokens/s x bytes read per token (the weights plus the KV cache) / the bandwidth a
//            streaming read reaches (tests/peers/bandwidth.cpp), for the same thread count
//   llama2.c: with --llama2c PATH, a run.c binary you compiled (the project neither ships nor builds it), on
//            the same shapes' float32 llama2.c checkpoints, at the same thread counts (OMP_NUM_THREADS, which
//            only an OpenMP build of run.c follows)
// The models are random-weight files of real shapes, made into models/bench/ (git-ignored) when absent.
// Model names are <shape>-<type>: shapes 15M, 110M and gqa40M (2 key/value heads); types f32, q8_0, q4_0 and,
// from llama.cpp's quantizer, q4_k_m, q5_k_m, q6_k, iq4_xs. `--models gqa` is every grouped-query file.
//   node tests/peers/bench.mjs [--models 15M-f32,110M-q8_0] [--threads 1,2] [--repeat 3] [--skip-browser] [--json]
//                              [--llama2c PATH] [--out FILE]   (default docs/benchmarks.md; --out - prints the table only)
//   node tests/peers/bench.mjs train [...]: training steps against llm.c's train_gpt2.c (tests/peers/bench-train.mjs)
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, commandLine, modelsDir, python, repo, runBenchPage } from './helpers.mjs';

if (process.argv[2] === 'train') {
  const { trainBench } = await import('./bench-train.mjs');
  await trainBench(commandLine(process.argv.slice(3)));
  process.exit(0);
}
const args = commandLine();
if (args.help || args.h) {
  console.log('usage: node tests/peers/bench.mjs [--models 15M-q8_0,110M-f32,gqa40M-q4_k_m|gqa] [--threads 1,2] [--repeat 3] [--skip-browser] [--json] [--llama2c RUN] [--out FILE|-]');
  console.log('       node tests/peers/bench.mjs train [--configs 4x128,6x384] [--threads 1,2] [--turns 3] [--steps 4] [--warmup 1] [--batch 4] [--architecture llama|gpt2] [--llmc DIR] [--json] [--out FILE|-]');
  process.exit(0);
}
const repeat = Number(args.repeat ?? 3);
const outFile = args.out === '-' ? null : path.resolve(repo, String(args.out ?? path.join('docs', 'benchmarks.md')));
const gen = 224;
const threadCounts = String(args.threads ?? '1,2').split(',').map(Number);
const promptText = 'Once upon a time, there was a little girl named Lily. She loved to play outside in the park with her dog.';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const benchDir = path.join(modelsDir, 'bench');
const MiB = 2 ** 20;

// The model shapes, with the 32,000-token Llama 2 vocabulary: stories15M's (llama2.c) and Llama-110M's, both
// with as many key/value heads as query heads, and gqa40M, grouped-query attention as in Llama 3, Qwen2 and
// SmolLM2: dim 512, 8 layers, 8 query heads sharing 2 key/value heads (head size 64), hidden 1536 (Llama's
// 8/3 x dim rounded up to 256), so every matrix row is whole 256-value super-blocks and llama.cpp's quantizer
// keeps the K-quant and IQ4_XS types it is asked for (on the 15M shape's rows of 288 it falls back to other
// blocks, so K-quants are measured on 110M and gqa40M).
const SHAPES = {
  '15M': ['--dim', '288', '--layers', '6', '--heads', '6', '--hidden', '768', '--seq-len', '1024'],
  '110M': ['--dim', '768', '--layers', '12', '--heads', '12', '--hidden', '2048', '--seq-len', '1024'],
  gqa40M: ['--dim', '512', '--layers', '8', '--heads', '8', '--kv-heads', '2', '--hidden', '1536', '--seq-len', '1024'],
};
// Types that come from llama.cpp's quantizer (llama-quantize's names), as in the files people download, with
// its per-tensor mix: the tied classifier is Q6_K in all four (on gqa40M, 12.8 of their 27-34 MB); Q4_K_M and
// Q5_K_M keep Q6_K for attn_v and ffn_down in 4 of 8 layers, IQ4_XS takes Q5_K for attn_v (and layer 0's
// ffn_down). The other types are written by `glassbox convert`.
const QUANTIZER_TYPES = { q4_k_m: 'Q4_K_M', q5_k_m: 'Q5_K_M', q6_k: 'Q6_K', iq4_xs: 'IQ4_XS' };
// The default run; the grouped-query files are asked for by name (--models gqa40M-q4_k_m,...), or all of them
// with --models gqa.
const ALL_MODELS = ['15M-f32', '15M-q8_0', '15M-q4_0', '110M-f32', '110M-q8_0', '110M-q4_k_m'];
const GQA_MODELS = ['gqa40M-q8_0', 'gqa40M-q4_0', ...Object.keys(QUANTIZER_TYPES).map((t) => `gqa40M-${t}`)];
const models = String(args.models ?? ALL_MODELS.join(',')).split(',').flatMap((m) => (m === 'gqa' ? GQA_MODELS : [m]));

function llamaPeers() {
  // The build's compiler output goes straight to the terminal: piped, its warnings overflow execFileSync's buffer.
  const [bench, quantize] = execFileSync(path.join(repo, 'scripts', 'build-llama-peers.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n');
  return { bench, quantize };
}

/** models/bench/<shape>.bin: the shape's random llama2.c checkpoint (what run.c reads), made when absent. */
function checkpointFile(shape) {
  const bin = path.join(benchDir, `${shape}.bin`);
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(benchDir, { recursive: true });
    execFileSync(python, [path.join(repo, 'tests', 'peers', 'make-bench-model.py'), `${bin}.partial`, ...SHAPES[shape]], { stdio: 'inherit' });
    fs.renameSync(`${bin}.partial`, bin);
  }
  return bin;
}

/** models/bench/<shape>-<type>.gguf, made from the shape's checkpoint when absent. */
function modelFile(name, peers) {
  const [shape, type] = name.split('-');
  const file = path.join(benchDir, `${name}.gguf`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(benchDir, { recursive: true });
  const f32 = path.join(benchDir, `${shape}-f32.gguf`);
  if (!fs.existsSync(f32))
    execFileSync(cli, ['convert', '--model', checkpointFile(shape), '--tokenizer', path.join(modelsDir, 'tokenizer.bin'), '--output', f32, '--type', 'f32', '--name', `${shape}-f32`], { stdio: 'inherit' });
  if (QUANTIZER_TYPES[type]) execFileSync(peers.quantize, [f32, file, QUANTIZER_TYPES[type]], { stdio: 'ignore' });
  else if (type !== 'f32') execFileSync(cli, ['convert', '--model', f32, '--output', file, '--type', type, '--name', name], { stdio: 'inherit' });
  return file;
}

function glassboxNative(file, threads, promptTokens, trace = 'off', { repeats = repeat, genTokens = gen } = {}) {
  const out = execFileSync(cli, ['bench', '--model', file, '--prompt-tokens', String(promptTokens), '--gen-tokens', String(genTokens),
    '--repeat', String(repeats), '--threads', String(threads), '--trace', trace, '--json'], { encoding: 'utf8' });
  return JSON.parse(out);
}

/** One llama-bench run (after its own warm-up) of pp32, pp256 and tg224 at `threads`: tokens/s. */
function llamaNative(peers, file, threads) {
  const out = execFileSync(peers.bench, ['-m', file, '-p', '32,256', '-n', String(gen), '-t', String(threads), '-r', '1', '-o', 'json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const rows = JSON.parse(out);
  const rate = (p, n) => rows.find((r) => r.n_prompt === p && r.n_gen === n)?.avg_ts ?? null;
  return { prompt32: rate(32, 0), prompt256: rate(256, 0), gen: rate(0, gen), build: rows[0]?.build_commit };
}

const CELLS = ['prompt32', 'prompt256', 'gen'];

/** Both engines natively at `threads`, taken in turn `repeat` times (one glassbox pass at 32 and at 256 prompt
 * tokens, then one llama-bench run), so that this machine's drift, which can move a cell by a fifth within a
 * minute, lands on both sides: per cell, each side's median and range, and the median of the turns' ratios. */
function nativeInTurn(peers, file, threads) {
  const turns = [];
  for (let r = 0; r < repeat; r++) {
    const short = glassboxNative(file, threads, 32, 'off', { repeats: 1 });
    const long = glassboxNative(file, threads, 256, 'off', { repeats: 1, genTokens: 0 });
    const glassbox = { prompt32: short.prompt_tokens_per_s, prompt256: long.prompt_tokens_per_s, gen: short.gen_tokens_per_s };
    turns.push({ glassbox, llama: llamaNative(peers, file, threads), short });
  }
  const side = (name) => Object.fromEntries(CELLS.flatMap((c) => {
    const values = turns.map((t) => t[name][c]).filter((v) => v != null);
    return values.length ? [[c, median(values)], [`${c}_range`, [Math.min(...values), Math.max(...values)]]] : [[c, null]];
  }));
  const ratios = Object.fromEntries(CELLS.map((c) => {
    const pairs = turns.filter((t) => t.glassbox[c] && t.llama[c]).map((t) => t.glassbox[c] / t.llama[c]);
    return [c, pairs.length ? median(pairs) : null];
  }));
  const last = turns[turns.length - 1].short;
  return {
    glassbox: { ...side('glassbox'), peak_resident_bytes: last.peak_resident_bytes, kv_cache_bytes: last.kv_cache_bytes },
    llama: { ...side('llama'), build: turns[0].llama.build },
    ratios,
  };
}

/** llama2.c's run.c (a binary given with --llama2c) generating greedily from an empty prompt on the shape's
 * float32 checkpoint: its own "achieved tok/s" (every position after the first, one token at a time), median
 * of the repeats. */
function llama2c(exe, shape, threads) {
  const rates = [];
  for (let r = 0; r < repeat; r++) {
    const run = spawnSync(exe, [checkpointFile(shape), '-z', path.join(modelsDir, 'tokenizer.bin'), '-t', '0', '-n', String(gen + 32), '-i', ''],
      { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OMP_NUM_THREADS: String(threads) } });
    const m = /achieved tok\/s: ([0-9.]+)/.exec(run.stderr ?? '');
    if (run.status !== 0 || !m) throw new Error(`${exe} printed no speed (exit ${run.status}): ${String(run.stderr ?? run.error).trim().slice(0, 200)}`);
    rates.push(Number(m[1]));
  }
  return median(rates);
}

/** Both engines in Chromium at `threads` threads each (bench-page/bench.html). */
function browser(model, threads) {
  return runBenchPage('bench.html', { 'model.gguf': model },
    { model: 'model.gguf', prompt: promptText, gen: String(gen), repeat: String(repeat), threads: String(threads) });
}

function bandwidth() {
  const exe = path.join(repo, 'build-peers', 'bandwidth');
  if (!fs.existsSync(exe)) execFileSync('g++', ['-O2', '-march=native', '-pthread', path.join(repo, 'tests', 'peers', 'bandwidth.cpp'), '-o', exe]);
  const r = JSON.parse(execFileSync(exe, [String(Math.max(...threadCounts))], { encoding: 'utf8' }));
  return Object.fromEntries(r.threads.map((t, i) => [t, r.gb_per_s[i] * 1e9]));
}

const machine = () => {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const flags = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const simd = flags.includes(' avx512f') ? 'AVX-512' : flags.includes(' avx2') ? 'AVX2' : 'SSE';
  return `${cpu}, ${os.cpus().length} cores, ${simd}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`;
};

const peers = llamaPeers();
const bw = bandwidth();
const results = [];
for (const name of models) {
  const file = modelFile(name, peers);
  const bytes = fs.statSync(file).size;
  const row = { model: name, file_bytes: bytes, native: {}, browser: null, trace: null };
  for (const t of threadCounts) {
    const { glassbox, llama, ratios } = nativeInTurn(peers, file, t);
    // Bytes a generated token reads: every weight once (the file, minus a little metadata) and, on average over
    // the 224 generated tokens after a 32-token prompt, 144 positions of keys and values.
    const perToken = bytes + glassbox.kv_cache_bytes * (144 / (32 + gen));
    row.native[t] = {
      glassbox, llama, ratios,
      roofline: { glassbox: (glassbox.gen * perToken) / bw[t], llama: llama.gen ? (llama.gen * perToken) / bw[t] : null },
    };
    console.error(`${name} t${t}: glassbox ${CELLS.map((c) => glassbox[c]?.toFixed(0)).join('/')}, llama.cpp ${CELLS.map((c) => llama[c]?.toFixed(0)).join('/')}`);
  }
  if (args.llama2c && name.endsWith('-f32')) {
    row.llama2c = {};
    for (const t of threadCounts) row.llama2c[t] = llama2c(path.resolve(String(args.llama2c)), name.split('-')[0], t);
  }
  // The trace's cost, from runs with and without it taken in turn (this machine's speed drifts by more than the
  // cost asked about): the medians of each and of the pairs' ratios.
  const off = [], on = [], ratios = [];
  for (let r = 0; r < repeat; r++) {
    off.push(glassboxNative(file, 1, 32, 'off').gen_tokens_per_s);
    on.push(glassboxNative(file, 1, 32, 'residuals').gen_tokens_per_s);
    ratios.push(on[r] / off[r]);
  }
  row.trace = { off: median(off), residuals: median(on), ratio: median(ratios) };
  if (!args['skip-browser']) {
    row.browser = {};
    for (const t of threadCounts) {
      try {
        row.browser[t] = await browser(file, t);
        const b = row.browser[t];
        console.error(`${name} t${t} in Chromium: glassbox ${b.glassbox.prompt.toFixed(0)}/${b.glassbox.gen.toFixed(0)}, wllama ${b.wllama.prompt.toFixed(0)}/${b.wllama.gen.toFixed(0)}`);
      } catch (error) {
        row.browser[t] = { error: String(error.message ?? error).split('\n')[0] };
      }
    }
  }
  results.push(row);
}

const version = execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
const report = { date: new Date().toISOString(), machine: machine(), glassbox: version, llama_cpp: results[0]?.native[threadCounts[0]].llama.build, bandwidth_bytes_per_s: bw, repeat, results };
if (args.json) console.log(JSON.stringify(report, null, 2));

const f0 = (x) => (x == null ? '–' : Number(x).toFixed(0));
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}x` : '–');
const SHAPE_NAMES = {
  '15M': 'stories15M: dim 288, 6 layers',
  '110M': 'Llama-110M: dim 768, 12 layers',
  gqa40M: 'gqa40M: dim 512, 8 layers, 8 query heads over 2 key/value heads, hidden 1536',
};
const lines = [
  '# Benchmarks',
  '',
  `Measured ${report.date.slice(0, 10)} by \`node tests/peers/bench.mjs\` (median of ${repeat} repeats per cell) on ${report.machine}.`,
  `${version}; llama.cpp ${report.llama_cpp ?? ''} (llama-bench, built from the source node-llama-cpp ships); memory bandwidth (streaming read): ` +
    Object.entries(bw).map(([t, b]) => `${(b / 1e9).toFixed(1)} GB/s at ${t} thread${t > 1 ? 's' : ''}`).join(', ') + '.',
  `Models: random weights in real shapes (${[...new Set(results.map((r) => r.model.split('-')[0]))].map((s) => SHAPE_NAMES[s]).join('; ')}; ` +
    '32,000-token vocabulary). Q4_K_M, Q5_K_M, Q6_K and IQ4_XS files come from llama.cpp\'s quantizer.',
  '',
  '## Native, tokens/s (glassbox / llama.cpp, and the ratio)',
  '',
  `The two are measured in turn, ${repeat} times (a glassbox pass, then a llama-bench run): each side's median, and the median of the turns' ratios.`,
  '',
  '| model | threads | prompt 32 | prompt 256 | generation | gen. roofline, glassbox / llama.cpp |',
  '|---|---|---|---|---|---|',
];
for (const r of results)
  for (const t of threadCounts) {
    const n = r.native[t];
    const cell = (c) => `${f0(n.glassbox[c])} / ${f0(n.llama[c])} (${n.ratios[c] == null ? '–' : `${n.ratios[c].toFixed(2)}x`})`;
    lines.push(`| ${r.model} | ${t} | ${CELLS.map(cell).join(' | ')} | ${(n.roofline.glassbox * 100).toFixed(0)}% / ${n.roofline.llama ? (n.roofline.llama * 100).toFixed(0) : '–'}% |`);
  }
lines.push('', '## In Chromium, tokens/s (glassbox WebAssembly / wllama, and the ratio)', '',
  'Past 1 thread: glassbox\'s pthreads build and wllama\'s multi-thread build, on a cross-origin isolated page.', '',
  '| model | threads | prompt | generation | glassbox WASM / native generation |', '|---|---|---|---|---|');
for (const r of results)
  for (const t of threadCounts) {
    const b = r.browser?.[t];
    if (!b || b.error) lines.push(`| ${r.model} | ${t} | ${b?.error ?? 'skipped'} | | |`);
    else lines.push(`| ${r.model} | ${t} | ${f0(b.glassbox.prompt)} / ${f0(b.wllama.prompt)} (${ratio(b.glassbox.prompt, b.wllama.prompt)}) | ${f0(b.glassbox.gen)} / ${f0(b.wllama.gen)} (${ratio(b.glassbox.gen, b.wllama.gen)}) | ${ratio(b.glassbox.gen, r.native[t]?.glassbox.gen)} |`);
  }
lines.push('', '## Spread (native): min–max tokens/s over the turns, glassbox / llama.cpp', '',
  '| model | threads | prompt 32 | prompt 256 | generation |', '|---|---|---|---|---|');
const range = (r) => (r ? `${f0(r[0])}–${f0(r[1])}` : '–');
for (const r of results)
  for (const t of threadCounts) {
    const n = r.native[t];
    lines.push(`| ${r.model} | ${t} | ${CELLS.map((c) => `${range(n.glassbox[`${c}_range`])} / ${range(n.llama[`${c}_range`])}`).join(' | ')} |`);
  }
const withLlama2c = results.filter((r) => r.llama2c);
if (withLlama2c.length) {
  lines.push('', '## llama2.c\'s run.c (float32 checkpoint, one token at a time), generation tokens/s', '',
    '| model | threads | glassbox | run.c | ratio |', '|---|---|---|---|---|');
  for (const r of withLlama2c)
    for (const t of threadCounts)
      lines.push(`| ${r.model} | ${t} | ${f0(r.native[t].glassbox.gen)} | ${f0(r.llama2c[t])} | ${ratio(r.native[t].glassbox.gen, r.llama2c[t])} |`);
}
lines.push('', '## Cost of the inspection trace (native, 1 thread, generation tokens/s)', '',
  `Runs without and with the trace taken in turn, ${repeat} of each: their medians, and the median of the pairs' ratios.`, '',
  '| model | trace off | residual trace (what the page records) | ratio |', '|---|---|---|---|');
for (const r of results) lines.push(`| ${r.model} | ${f0(r.trace.off)} | ${f0(r.trace.residuals)} | ${r.trace.ratio.toFixed(2)}x |`);
lines.push('', '## Memory (native, 1 thread)', '', 'The weights stay memory-mapped (not copied); the rest of the peak is the KV cache, the scratch of a 256-token prompt chunk and the program.', '',
  '| model | file | KV cache | file + KV cache | peak resident |', '|---|---|---|---|---|');
for (const r of results) {
  const g = r.native[threadCounts[0]].glassbox;
  lines.push(`| ${r.model} | ${(r.file_bytes / MiB).toFixed(1)} MiB | ${(g.kv_cache_bytes / MiB).toFixed(1)} MiB | ${((r.file_bytes + g.kv_cache_bytes) / MiB).toFixed(1)} MiB | ${(g.peak_resident_bytes / MiB).toFixed(1)} MiB |`);
}
if (!withLlama2c.length) lines.push('', 'llama2.c\'s run.c was not measured: pass `--llama2c PATH` with a run.c binary you compiled (the project does not ship or build it).');
lines.push('');
if (outFile) {
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  // The encoders' sections are bench-encoder.mjs's: kept as they are, after this run's decoder tables.
  const previous = fs.existsSync(outFile) ? fs.readFileSync(outFile, 'utf8') : '';
  const encoders = previous.indexOf('\n## Encoders');
  fs.writeFileSync(outFile, lines.join('\n') + (encoders >= 0 ? previous.slice(encoders + 1) : ''));
}
console.error(lines.join('\n'));
