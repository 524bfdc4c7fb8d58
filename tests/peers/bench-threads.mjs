#!/usr/bin/env node
// Threads only where they pay (glassbox/thread_choice.hpp), as figures (never a test: a busy machine moves
// them). For each model, `glassbox bench` at --threads 1, 2 and auto, alternated round by round so that a
// burst of other work on the machine lands on every setting alike; prints per setting the median tokens/s
// of the rounds with their range (min-max), and the threads auto chose with its reason.
//   node tests/peers/bench-threads.mjs [--rounds 5] [--models models/stories260K.gguf,models/bench/shape-0.5B-q4_0.gguf]
//                                      [--prompt-tokens 128] [--gen-tokens 128]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    models: { type: 'string', default: 'models/stories260K.gguf,models/bench/shape-0.5B-q4_0.gguf' },
    'prompt-tokens': { type: 'string', default: '128' },
    'gen-tokens': { type: 'string', default: '128' },
  },
});
const cli = process.env.GLASSBOX_CLI ?? path.join(repo, 'build', 'glassbox');
const settings = ['1', '2', 'auto'];

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const range = (v) => `${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)}`;

for (const model of values.models.split(',')) {
  const runs = Object.fromEntries(settings.map((s) => [s, []]));
  for (let round = 0; round < Number(values.rounds); round++)
    for (const threads of round % 2 ? [...settings].reverse() : settings) {
      const out = execFileSync(cli, ['bench', '--model', path.resolve(repo, model), '--threads', threads, '--prompt-tokens', values['prompt-tokens'], '--gen-tokens', values['gen-tokens'], '--repeat', '1', '--json'], { encoding: 'utf8' });
      runs[threads].push(JSON.parse(out));
    }
  console.log(`${model}: ${values['prompt-tokens']}-token prompt, ${values['gen-tokens']} generated, median of ${values.rounds} alternated rounds (range)`);
  for (const threads of settings) {
    const r = runs[threads];
    const prompt = r.map((x) => x.prompt_tokens_per_s), gen = r.map((x) => x.gen_tokens_per_s);
    const chose = threads === 'auto' ? `  auto chose prompt ${r[0].prompt_threads}, generation ${r[0].gen_threads}: ${r[0].threads_why}` : '';
    console.log(`  threads ${threads.padEnd(4)} prompt ${median(prompt).toFixed(1).padStart(9)} tok/s (${range(prompt)})  generation ${median(gen).toFixed(1).padStart(8)} tok/s (${range(gen)})${chose}`);
  }
}
