// The training benchmark, `node tests/peers/bench.mjs train`: tokens/s of one training step of glassbox
// (`glassbox train --config`, random weights) next to llm.c's train_gpt2.c (its CPU trainer in plain C:
// forward, zero_grad, backward, AdamW), on GPT-2-shaped configs, at 1 and 2 threads, written into
// docs/benchmarks.md's "Training" section.
//
//   node tests/peers/bench.mjs train [--configs 4x128,6x384] [--threads 1,2] [--turns 3] [--steps 4]
//        [--warmup 1] [--batch 4] [--architecture llama|gpt2] [--llmc DIR] [--json] [--out FILE|-]
//
// llm.c is not shipped, built or needed by the project (CI never runs this): it is looked for in --llmc
// (default build-peers/llm.c, git-ignored; `git clone https://github.com/karpathy/llm.c build-peers/llm.c`).
// When it is absent, glassbox alone is measured and the table says so. Its train_gpt2.c is compiled with
// -O3 -march=native -fopenmp into tests/peers/llmc-train-step.c, our driver that calls its gpt2_* functions
// (threads: OMP_NUM_THREADS), on a checkpoint of random weights in llm.c's format (make-llmc-checkpoint.py).
//
// The same work on both sides: batch B rows of T positions, each predicting the next token. The data are
// lines of a text cut so that each is exactly T + 1 tokens of tok512 (BOS first): glassbox trains with
// --context T + 1, so each row is one line and T positions are trained (its tokens_per_second counts the
// row's T + 1 tokens, scaled here by T / (T + 1)); llm.c reads the same ids, inputs the first T, targets the
// last T. Each run's figure is the median of its steps after the warm-up; the two programs run in turn,
// --turns times, so this shared machine's drift lands on both; per cell: each side's median and min-max
// over the turns, and the median of the turns' ratios.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, modelsDir, python, repo } from './helpers.mjs';

// What glassbox trains: GPT-2, as llm.c does (--architecture llama trains a Llama of the same shape instead).
const ARCHITECTURE = 'gpt2';

// GPT-2-shaped configs: layers x width, heads, context T.
const CONFIGS = {
  '4x128': { layers: 4, dim: 128, heads: 4, context: 64 },
  '6x384': { layers: 6, dim: 384, heads: 6, context: 256 },
};

/** glassbox's config JSON for a shape. GPT-2's feed-forward is 4 x dim wide with two matrices; a Llama's
 * SwiGLU has three, so it gets 8/3 x dim, the same multiply-adds and weights per layer. Tied classifier
 * (GPT-2 ties it), full multi-head attention. The context is T + 1 tokens (T positions trained). */
function glassboxConfig(architecture, shape) {
  const hidden = architecture === 'gpt2' ? 4 * shape.dim : Math.round((8 * shape.dim) / 3);
  return {
    architecture, dim: shape.dim, layers: shape.layers, heads: shape.heads, kv_heads: shape.heads,
    hidden_dim: hidden, context: shape.context + 1, tied: true,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => [Math.min(...xs), Math.max(...xs)];

/** Where llm.c's sources are, and the driver built from them (rebuilt when older than either source). */
function llmcPeer(dir) {
  const source = path.join(dir, 'train_gpt2.c');
  if (!fs.existsSync(source)) return null;
  const driver = path.join(repo, 'tests', 'peers', 'llmc-train-step.c');
  const exe = path.join(repo, 'build-peers', 'llmc-train-step');
  const mtime = (f) => fs.statSync(f).mtimeMs;
  if (!fs.existsSync(exe) || mtime(exe) < Math.max(mtime(source), mtime(driver))) {
    fs.mkdirSync(path.dirname(exe), { recursive: true });
    execFileSync('gcc', ['-O3', '-march=native', '-fopenmp', '-Wno-unused-result', '-I', dir, driver, '-lm', '-o', exe], { stdio: 'inherit' });
  }
  // A clone's own commit (not that of a repository the folder happens to lie in), or, for a copy of the
  // sources without .git, the commit written beside them in COMMIT.
  let commit = null;
  if (fs.existsSync(path.join(dir, '.git')))
    commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  else if (fs.existsSync(path.join(dir, 'COMMIT'))) commit = fs.readFileSync(path.join(dir, 'COMMIT'), 'utf8').trim().slice(0, 7);
  const gcc = execFileSync('gcc', ['-dumpfullversion'], { encoding: 'utf8' }).trim();
  return { exe, commit, gcc };
}

function tokenize(tokenizer, text) {
  return JSON.parse(execFileSync(cli, ['tokenize', '--tokenizer', tokenizer, '--text', text, '--json'], { encoding: 'utf8' })).ids;
}

/** `count` lines of the text's words, each exactly `tokens` tokens long (BOS included): for each line the
 * number of words is searched for; where no count of words from a start gives exactly `tokens` (a word
 * added two tokens at the edge), the line starts one word later. */
function exactLines(tokenizer, words, tokens, count) {
  const lines = [];
  let start = 0;
  while (lines.length < count) {
    if (start + tokens >= words.length) start = 0;
    let lo = 1, hi = tokens; // words: each gives at least one token
    let found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const text = words.slice(start, start + mid).join(' ');
      const ids = tokenize(tokenizer, text);
      if (ids.length === tokens) {
        found = { text, ids, words: mid };
        break;
      }
      if (ids.length < tokens) lo = mid + 1;
      else hi = mid - 1;
    }
    if (found) {
      lines.push(found);
      start += found.words;
    } else start += 1;
  }
  return lines;
}

/** The shape's files in build-peers/train-bench/ (made when absent): glassbox's config, the data lines
 * (text), the same lines' ids for llm.c, and llm.c's random checkpoint. */
function benchFiles(name, shape, architecture, tokenizer, textFile, batch) {
  const dir = path.join(repo, 'build-peers', 'train-bench');
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, `${name}-${architecture}.json`);
  fs.writeFileSync(config, JSON.stringify(glassboxConfig(architecture, shape)));
  const data = path.join(dir, `${name}-lines.txt`), rows = path.join(dir, `${name}-rows.bin`);
  if (!fs.existsSync(data) || !fs.existsSync(rows)) {
    const words = fs.readFileSync(textFile, 'utf8').split(/\s+/).filter(Boolean);
    const lines = exactLines(tokenizer, words, shape.context + 1, 2 * batch);
    fs.writeFileSync(rows, Buffer.from(Int32Array.from(lines.flatMap((l) => l.ids)).buffer));
    fs.writeFileSync(data, lines.map((l) => l.text).join('\n') + '\n');
  }
  const checkpoint = path.join(dir, `${name}-llmc.bin`);
  if (!fs.existsSync(checkpoint))
    execFileSync(python, [path.join(repo, 'tests', 'peers', 'make-llmc-checkpoint.py'), checkpoint, '--layers', String(shape.layers),
      '--dim', String(shape.dim), '--heads', String(shape.heads), '--context', String(shape.context), '--vocab', '512']);
  return { config, data, rows, checkpoint };
}

/** One glassbox run: the median tokens (positions) per second of its steps after the warm-up. */
function glassboxRun(files, shape, tokenizer, threads, o) {
  const out = execFileSync(cli, ['train', '--config', files.config, '--tokenizer', tokenizer, '--data', files.data,
    '--steps', String(o.steps), '--batch', String(o.batch), '--context', String(shape.context + 1), '--threads', String(threads),
    '--output', path.join(os.tmpdir(), `glassbox-train-bench-${process.pid}.gguf`), '--json'], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  const steps = out.trim().split('\n').map((l) => JSON.parse(l)).slice(o.warmup);
  return median(steps.map((s) => (s.tokens_per_second * shape.context) / (shape.context + 1)));
}

/** One llm.c run: the median tokens per second of its steps after the warm-up. */
function llmcRun(peer, files, shape, threads, o) {
  const run = spawnSync(peer.exe, [files.checkpoint, files.rows, String(o.batch), String(shape.context), String(o.steps)],
    { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: String(threads) } });
  const steps = (run.stdout ?? '').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).slice(o.warmup);
  if (run.status !== 0 || steps.length === 0)
    throw new Error(`${peer.exe} failed (exit ${run.status}): ${String(run.stderr ?? run.error).trim().slice(0, 300)}`);
  return median(steps.map((s) => s.tokens_per_second));
}

export async function trainBench(args) {
  const o = {
    steps: Number(args.steps ?? 4), warmup: Number(args.warmup ?? 1), batch: Number(args.batch ?? 4), turns: Number(args.turns ?? 3),
  };
  if (o.steps <= o.warmup) throw new Error(`--steps ${o.steps} leaves no step after --warmup ${o.warmup}`);
  const architecture = String(args.architecture ?? ARCHITECTURE);
  const threadCounts = String(args.threads ?? '1,2').split(',').map(Number);
  const names = String(args.configs ?? Object.keys(CONFIGS).join(',')).split(',');
  for (const n of names) if (!CONFIGS[n]) throw new Error(`unknown config ${n} (known: ${Object.keys(CONFIGS).join(', ')})`);
  const tokenizer = path.join(modelsDir, 'tok512.bin');
  if (!fs.existsSync(tokenizer)) throw new Error(`absent: ${tokenizer} (scripts/fetch-models.sh)`);
  const corpus = path.join(repo, '..', 'shared', 'corpus', 'tinyshakespeare.txt');
  const textFile = String(args.text ?? (fs.existsSync(corpus) ? corpus : path.join(repo, 'docs', 'architecture.md')));
  const llmcDir = path.resolve(repo, String(args.llmc ?? path.join('build-peers', 'llm.c')));
  const peer = llmcPeer(llmcDir);
  if (!peer) {
    const shown = llmcDir.startsWith(repo + path.sep) ? path.relative(repo, llmcDir) : llmcDir;
    console.error(`llm.c not found in ${llmcDir}: measuring glassbox alone. To compare, get it with\n` +
      `  git clone https://github.com/karpathy/llm.c ${shown}\nor pass --llmc DIR (a folder holding its train_gpt2.c and llmc/).`);
  }

  const results = [];
  for (const name of names) {
    const shape = CONFIGS[name];
    const files = benchFiles(name, shape, architecture, tokenizer, textFile, o.batch);
    for (const threads of threadCounts) {
      const turns = [];
      for (let r = 0; r < o.turns; r++) {
        const glassbox = glassboxRun(files, shape, tokenizer, threads, o);
        const llmc = peer ? llmcRun(peer, files, shape, threads, o) : null;
        turns.push({ glassbox, llmc, load: os.loadavg()[0] });
        console.error(`${name} t${threads} turn ${r + 1}: glassbox ${glassbox.toFixed(0)}, llm.c ${llmc?.toFixed(0) ?? '-'} tokens/s (load ${os.loadavg()[0].toFixed(1)})`);
      }
      const g = turns.map((t) => t.glassbox), l = peer ? turns.map((t) => t.llmc) : null;
      results.push({
        config: name, shape, threads, turns,
        glassbox: { median: median(g), range: spread(g) },
        llmc: l && { median: median(l), range: spread(l) },
        ratio: l ? median(turns.map((t) => t.glassbox / t.llmc)) : null,
        load: spread(turns.map((t) => t.load)),
      });
    }
  }

  const version = execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim();
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const report = { date: new Date().toISOString(), machine: `${cpu}, ${os.cpus().length} cores`, glassbox: version, architecture, llmc: peer && { commit: peer.commit, gcc: peer.gcc }, options: o, results };
  if (args.json) console.log(JSON.stringify(report, null, 2));

  const f0 = (x) => (x == null ? '–' : Number(x).toFixed(0));
  const stand = architecture === 'gpt2' ? 'GPT-2' : 'a Llama of the same shape (SwiGLU of 8/3 x dim, so the same multiply-adds as GPT-2\'s 4 x dim GELU feed-forward; RMSNorm, RoPE, no biases), standing in until glassbox trains "gpt2" configs';
  const lines = [
    '## Training: tokens/s of a training step (glassbox / llm.c)',
    '',
    `Measured ${report.date.slice(0, 10)} by \`node tests/peers/bench.mjs train --turns ${o.turns} --steps ${o.steps}\` on ${report.machine}; ${version}` +
      (peer ? `; llm.c ${peer.commit ?? ''} train_gpt2.c built with gcc ${peer.gcc} -O3 -march=native -fopenmp (threads: OMP_NUM_THREADS).` : '; llm.c not measured (absent).'),
    `One step: forward, backward and AdamW update of a batch of ${o.batch} rows of T positions (random weights, vocabulary 512: tok512, which llm.c pads to 512).`,
    'The same token ids on both sides: lines cut to T + 1 tokens each; glassbox trains rows of T + 1 tokens (T positions predicted, as llm.c\'s T inputs), its tokens/s scaled by T / (T + 1) to count positions.',
    `glassbox trains ${stand}; llm.c trains GPT-2 (LayerNorm, learned positions, biases, GELU). Both tie the classifier to the embedding.`,
    `Each run: ${o.steps} steps, the first ${o.warmup} dropped as warm-up, the median of the rest; the two programs run in turn ${o.turns} times.`,
    'Cells: each side\'s median over the turns (min–max), and the median of the turns\' ratios. Both sides take the loss from',
    'the training forward pass (glassbox\'s computes `score`\'s bits, so its step scores nothing twice).',
    'Load average: the machine\'s 1-minute load over the turns (the bench itself takes 1 to 2 of it); past the core count,',
    'other work competes for the cores, and multi-threaded runs (llm.c\'s OpenMP teams most) lose the most.',
    '',
    '| config | threads | glassbox tokens/s | llm.c tokens/s | ratio | load average |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const s = r.shape;
    lines.push(`| ${s.layers} layers, ${s.dim} wide, ${s.heads} heads, T ${s.context} | ${r.threads} | ${f0(r.glassbox.median)} (${f0(r.glassbox.range[0])}–${f0(r.glassbox.range[1])}) | ` +
      (r.llmc ? `${f0(r.llmc.median)} (${f0(r.llmc.range[0])}–${f0(r.llmc.range[1])}) | ${r.ratio.toFixed(2)}x` : '– | –') +
      ` | ${r.load[0].toFixed(1)}–${r.load[1].toFixed(1)} |`);
  }
  lines.push('');
  const section = lines.join('\n');
  console.error(section);
  const outFile = args.out === '-' ? null : path.resolve(repo, String(args.out ?? path.join('docs', 'benchmarks.md')));
  if (outFile) {
    // The section replaces the one before it (from its heading to the next "## " heading), or is appended.
    const previous = fs.existsSync(outFile) ? fs.readFileSync(outFile, 'utf8') : '# Benchmarks\n';
    const at = previous.indexOf('\n## Training: ');
    let next = at >= 0 ? previous.indexOf('\n## ', at + 1) : -1;
    const before = at >= 0 ? previous.slice(0, at + 1) : previous.replace(/\n*$/, '\n\n');
    const after = at >= 0 && next >= 0 ? previous.slice(next + 1) : '';
    fs.writeFileSync(outFile, before + section + (after ? '\n' + after : ''));
  }
}
