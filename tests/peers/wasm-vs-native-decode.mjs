#!/usr/bin/env node
// Decode speed of the WebAssembly engine (V8 under Node, the single-threaded build) as a fraction of the native
// build's, 1 thread, on the same GGUF file: the figure issue 30 asks to reach 0.5 for quantized types. A
// figure, never a test. CPU time, not wall time, so that other work on a shared machine moves it less:
//   WebAssembly  process.cpuUsage() around `gen` steps, after the prompt and `skip` steps ran untimed
//   native       `glassbox bench --threads 1 --repeat 4` run twice, generating `skip` and `skip + gen` tokens,
//                and the difference of the two runs' CPU time (the children's utime + stime in /proc/self/stat), so
//                loading and the prompt cancel out
//   --cli        also the WebAssembly build of the CLI (build-wasm/glassbox.js under Node) measured as native
//                is: the same bench code on both sides, without the engine's residual trace (the page's)
// Both decode the same positions (a 32-token prompt, then tokens skip .. skip + gen). Turns alternate the
// order of the engines; per model it prints the median tokens per CPU-second of each, their ranges, and the
// median of the turns' ratios. --wasm takes several build folders (a change's before and after, measured in
// the same turns).
//   node tests/peers/wasm-vs-native-decode.mjs [--models 15M-q8_0,15M-q4_0] [--turns 5] [--gen 256] [--skip 32]
//                                              [--wasm build-wasm,OTHER_BUILD] [--cli]
// (models are models/bench/<name>.gguf, made by tests/peers/bench.mjs; needs build/glassbox and build-wasm/)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cli, modelsDir, repo } from './helpers.mjs';

const { values } = parseArgs({
  options: {
    models: { type: 'string', default: '15M-q8_0,15M-q4_0,110M-q4_k_m' },
    turns: { type: 'string', default: '5' },
    gen: { type: 'string', default: '256' },
    skip: { type: 'string', default: '32' },
    wasm: { type: 'string', default: process.env.GLASSBOX_WASM_DIR ?? path.join(repo, 'build-wasm') },
    cli: { type: 'boolean', default: false },
  },
});
const turns = Number(values.turns), gen = Number(values.gen), skip = Number(values.skip);
const promptTokens = 32;
const wasmDirs = values.wasm.split(',').map((d) => path.resolve(d));
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const range = (v) => `${Math.min(...v).toFixed(0)}-${Math.max(...v).toFixed(0)}`;

// CPU seconds of this process's children that have been waited for (fields 16 and 17 of /proc/self/stat).
const ticksPerSecond = 100; // USER_HZ on Linux
function childrenCpuSeconds() {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
}

// `glassbox bench` (argv: the native binary, or node and the WebAssembly build of the CLI) generating genTokens.
function benchCpuSeconds(argv, model, genTokens) {
  const before = childrenCpuSeconds();
  const run = spawnSync(argv[0], [...argv.slice(1), 'bench', '--model', model, '--threads', '1', '--prompt-tokens', String(promptTokens), '--gen-tokens', String(genTokens), '--repeat', String(benchRepeat), '--no-warmup', '--json'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`glassbox bench failed: ${run.stderr}`);
  return childrenCpuSeconds() - before;
}

/** Decode by `glassbox bench`, tokens per CPU-second over tokens skip .. skip + gen (benchRepeat times, so
 * that the 10 ms ticks of the CPU times are a small part of the difference). */
const benchRepeat = 4;
function benchRate(argv, model) {
  const cpu = benchCpuSeconds(argv, model, skip + gen) - benchCpuSeconds(argv, model, skip);
  return (benchRepeat * gen) / cpu;
}

async function wasmEngine(wasmDir, model) {
  const { default: createModule } = await import(path.join(wasmDir, 'glassbox-engine.mjs'));
  const { GlassboxEngine, MODEL_SLOT } = await import(path.join(repo, 'wasm', 'engine.js'));
  const engine = await GlassboxEngine.create(createModule, { wasmBinary: fs.readFileSync(path.join(wasmDir, 'glassbox-engine.wasm')) });
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(model), 'model.gguf');
  engine.load('model.gguf');
  engine.setSampler({ temperature: 0 }); // greedy, as glassbox bench and the benchmark page
  return engine;
}

/** WebAssembly decode, tokens per CPU-second over tokens skip .. skip + gen. */
function wasmRate(engine) {
  const ids = Array.from({ length: promptTokens }, (_, i) => 100 + i);
  engine.startTokens(ids);
  for (let i = 0; i < skip; i++) engine.step();
  const before = process.cpuUsage();
  for (let i = 0; i < gen; i++)
    if (engine.step().end) throw new Error('the generation ended early; use fewer tokens');
  const used = process.cpuUsage(before);
  engine.stop();
  return gen / ((used.user + used.system) / 1e6);
}

console.log(`${os.cpus()[0].model}; decode at 1 thread, tokens per CPU-second, tokens ${skip}..${skip + gen} after a ${promptTokens}-token prompt, ${turns} alternated turns`);
for (const name of values.models.split(',')) {
  const model = path.join(modelsDir, 'bench', `${name}.gguf`);
  const engines = [];
  for (const dir of wasmDirs) engines.push(await wasmEngine(dir, model));
  for (const engine of engines) wasmRate(engine); // untimed: V8's tiers and the heap settle
  const native = [], wasm = engines.map(() => []), wasmCli = engines.map(() => []);
  const measurements = [() => native.push(benchRate([cli], model)), ...engines.map((engine, i) => () => wasm[i].push(wasmRate(engine)))];
  if (values.cli)
    wasmDirs.forEach((dir, i) => measurements.push(() => wasmCli[i].push(benchRate([process.execPath, '--no-experimental-fetch', path.join(dir, 'glassbox.js')], model))));
  for (let turn = 0; turn < turns; turn++)
    for (const measure of turn % 2 === 0 ? measurements : [...measurements].reverse()) measure();
  console.log(`${name}: native ${median(native).toFixed(0)} (${range(native)})`);
  wasmDirs.forEach((dir, i) => {
    const ratios = wasm[i].map((w, turn) => w / native[turn]);
    console.log(`  ${path.relative(process.cwd(), dir) || '.'}: WebAssembly engine ${median(wasm[i]).toFixed(0)} (${range(wasm[i])}), fraction of native ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`);
    if (!values.cli) return;
    const cliRatios = wasmCli[i].map((w, turn) => w / native[turn]);
    console.log(`  ${' '.repeat((path.relative(process.cwd(), dir) || '.').length)}  WebAssembly CLI    ${median(wasmCli[i]).toFixed(0)} (${range(wasmCli[i])}), fraction of native ${median(cliRatios).toFixed(2)} (${Math.min(...cliRatios).toFixed(2)}-${Math.max(...cliRatios).toFixed(2)})`);
  });
}
