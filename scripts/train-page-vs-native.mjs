// One-off measurement (not a test): the page's trainer (the single-threaded WebAssembly engine, driven as the
// training lab's worker drives it) against the native CLI at 1 thread, on the lab's first preset (2 layers,
// dim 64, 2 heads, context 192), the copy task's lines as the lab makes them, batch 8, the same seed: the
// same rows in both. Steps 1..STEPS are timed (step 0 warms up), in two ways:
//   - CPU seconds of the thread that trains (WebAssembly: this process's main thread, read from /proc, so V8's
//     compiler and GC threads are left out; native: a STEPS+1-step run's CPU time minus a 1-step run's),
//     which a shared machine disturbs far less than the wall clock;
//   - the median of each step's own tokens/s (the engine's timing, what the lab shows).
//   node --no-experimental-fetch scripts/train-page-vs-native.mjs [STEPS] [ROUNDS]
// Needs build-wasm/glassbox-engine.{mjs,wasm}, build/glassbox, models/tok512.bin and stories260K, Linux
// (/proc) and /usr/bin/time (Debian's `time`). Set GLASSBOX_WASM_DIR / GLASSBOX_CLI for other builds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, createEngine, stories } from '../tests/wasm/helpers.mjs';

const steps = Number(process.argv[2] ?? 40);
const rounds = Number(process.argv[3] ?? 3);
const config = { architecture: 'llama', dim: 64, layers: 2, heads: 2, kv_heads: 2, hidden_dim: 128, context: 192 };
const settings = { steps: steps + 1, batch: 8, context: 192, learningRate: 0.003, warmup: 1, schedule: 'cosine', seed: 42 };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** CPU seconds (user + system) of this process's main thread. */
function mainThreadSeconds() {
  const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in Linux's clock ticks of 1/100 s
}

async function page(data) {
  const { MODEL_SLOT, TOKENIZER_SLOT } = await import('../wasm/engine.js');
  const engine = await createEngine();
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(stories.model), 'stories260K.bin');
  engine.uploadBytes(TOKENIZER_SLOT, fs.readFileSync(stories.tokenizer), 'tok512.bin');
  engine.load('stories260K.bin', 'tok512.bin');
  engine.trainBegin(JSON.stringify(config), data, settings);
  engine.trainStep(); // step 0: V8 compiles the hot functions
  const perStep = [];
  let tokens = 0;
  const start = mainThreadSeconds();
  for (let i = 0; i < steps; i++) {
    const r = engine.trainStep();
    perStep.push(r.tokens / r.seconds);
    tokens += r.tokens;
  }
  return { tokens, cpu: tokens / (mainThreadSeconds() - start), median: median(perStep) };
}

function native(dir, tokens) {
  const run = (n) => {
    const timing = path.join(dir, 'time.txt');
    const out = execFileSync('/usr/bin/time', ['-f', '%U %S', '-o', timing, cli, 'train', '--config', path.join(dir, 'config.json'), '--tokenizer', stories.tokenizer, '--data', path.join(dir, 'data.txt'), '--steps', String(n), '--batch', '8', '--context', '192', '--lr', '0.003', '--warmup', '1', '--seed', '42', '--threads', '1', '--output', path.join(dir, 'out.gguf'), '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [user, system] = fs.readFileSync(timing, 'utf8').trim().split(/\s+/).map(Number);
    const perStep = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((r) => 'tokens_per_second' in r).slice(1).map((r) => r.tokens_per_second);
    return { seconds: user + system, perStep };
  };
  const one = run(1);
  const all = run(steps + 1);
  return { cpu: tokens / (all.seconds - one.seconds), median: median(all.perStep) };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-train-speed-'));
try {
  const engine = await createEngine();
  const { MODEL_SLOT, TOKENIZER_SLOT } = await import('../wasm/engine.js');
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(stories.model), 'stories260K.bin');
  engine.uploadBytes(TOKENIZER_SLOT, fs.readFileSync(stories.tokenizer), 'tok512.bin');
  engine.load('stories260K.bin', 'tok512.bin');
  // The lab's lines (web/src/views/train-lab.ts: 4,000 copy lines of twelve words, seed 1).
  const data = engine.syntheticTask({ task: 'copy', lines: 4000, length: 12, seed: 1, maxTokens: 192 });
  fs.writeFileSync(path.join(dir, 'data.txt'), data + '\n');
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  console.log(`steps 1..${steps} of the lab's first preset, ${os.loadavg()[0].toFixed(1)} load average at the start`);
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    const p = await page(data);
    const n = native(dir, p.tokens);
    ratios.push(p.cpu / n.cpu);
    console.log(`round ${r + 1}: tokens per CPU-second: page ${Math.round(p.cpu)}, native ${Math.round(n.cpu)} (${(p.cpu / n.cpu).toFixed(2)}); median step tokens/s: page ${Math.round(p.median)}, native ${Math.round(n.median)}`);
  }
  console.log(`page / native per thread (CPU time): median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
