#!/usr/bin/env node
// The page's own speed figures under each thread setting (never a test: a busy machine moves them). With
// stories260K in the threaded build (Chromium, cross-origin isolated), it generates --tokens tokens greedily
// under "auto", every forced count and back, alternating the order round by round, and prints per setting the
// median of the page's generation tokens/s and engine ms/token with their range, and what the page said
// about its threads. Needs dist/ (npm run build) and models/.
//   node tests/peers/page-threads.mjs [--rounds 5] [--tokens 200]
import { parseArgs } from 'node:util';
import { generate, openPage, startEnvironment, whenModelLoaded } from '../browser/harness.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, tokens: { type: 'string', default: '200' } } });
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const range = (v) => `${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)}`;

const env = await startEnvironment();
try {
  const { context, page } = await openPage(env, { serviceWorkers: 'block' });
  const info = await whenModelLoaded(page);
  const settings = await page.$$eval('#threads-select option', (options) => options.map((o) => o.value));
  if (settings.length === 0) throw new Error('the page runs the single-threaded build: no thread setting to compare');
  console.log(`${await page.evaluate(() => window.__glassbox.build)}; ${info.threads} threads started; ${values.tokens} tokens, median of ${values.rounds} alternated rounds (range)`);
  const runs = Object.fromEntries(settings.map((s) => [s, { rate: [], engine: [], said: '' }]));
  for (let round = 0; round < Number(values.rounds); round++)
    for (const setting of round % 2 ? [...settings].reverse() : settings) {
      await page.selectOption('#threads-select', setting);
      await generate(page, 'Once upon a time', { temperature: 0, maxTokens: Number(values.tokens) });
      const shown = await page.evaluate(() => ({
        rate: Number(document.querySelector('#stat-rate strong')?.textContent),
        engine: Number(document.querySelector('#stat-engine strong')?.textContent),
        threads: document.querySelector('#stat-threads')?.textContent,
        why: document.querySelector('#stat-threads-why')?.textContent,
      }));
      runs[setting].rate.push(shown.rate);
      runs[setting].engine.push(shown.engine);
      runs[setting].said = `${shown.threads} (${shown.why})`;
    }
  for (const [setting, r] of Object.entries(runs))
    console.log(`  ${setting.padEnd(5)} ${median(r.rate).toFixed(1).padStart(7)} tok/s (${range(r.rate)})  engine ${median(r.engine).toFixed(2)} ms/token (${range(r.engine)})  page said: ${r.said}`);
  await context.close();
} finally {
  await env.close();
}
