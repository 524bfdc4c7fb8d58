#!/usr/bin/env node
// The page's own speed figures under each thread setting (never a test: a busy machine moves them). With
// stories260K in the threaded build (cross-origin isolated), it generates --tokens tokens greedily under
// "auto" and every forced count, alternating the order round by round, and prints per setting the median of
// the page's generation tokens/s and engine ms/token with their range, and what the page said about its
// threads. --engine chromium or firefox (tests/browser/engines.mjs's drivers). Needs dist/ and models/.
//   node tests/peers/page-threads.mjs [--engine chromium|firefox] [--rounds 5] [--tokens 200]
import { parseArgs } from 'node:util';
import { startStaticServer } from '../../web/tools/static-server.mjs';
import { ENGINES } from '../browser/engines.mjs';
import { SUBFOLDER, dist } from '../browser/harness.mjs';

const { values } = parseArgs({
  options: { engine: { type: 'string', default: 'chromium' }, rounds: { type: 'string', default: '5' }, tokens: { type: 'string', default: '200' } },
});
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const range = (v) => `${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)}`;

// In the page: sets form fields as typing would (input and change events).
const setFields = (fields) => {
  for (const [selector, value] of Object.entries(fields)) {
    const field = document.querySelector(selector);
    field.value = String(value);
    field.dispatchEvent(new Event('input', { bubbles: true }));
    field.dispatchEvent(new Event('change', { bubbles: true }));
  }
  return true;
};

const engine = ENGINES.find((e) => e.name === values.engine);
if (!engine) throw new Error(`--engine: one of ${ENGINES.map((e) => e.name).join(', ')}`);
const server = await startStaticServer({ root: dist, base: SUBFOLDER });
const driver = await engine.start();
try {
  await driver.open(server.url);
  await driver.waitFor(() => window.__glassbox && window.__glassbox.loads >= 1);
  const settings = await driver.run(() => [...document.querySelectorAll('#threads-select option')].map((o) => o.value));
  if (settings.length === 0) throw new Error('the page runs the single-threaded build: no thread setting to compare');
  const build = await driver.run(() => window.__glassbox.build + ', ' + document.querySelector('#engine-threads').textContent);
  console.log(`${values.engine}: ${build}; ${values.tokens} tokens, median of ${values.rounds} alternated rounds (range)`);
  const runs = new Map(settings.map((s) => [s, { rate: [], engine: [], said: '' }]));
  for (let round = 0; round < Number(values.rounds); round++)
    for (const setting of round % 2 ? [...settings].reverse() : settings) {
      await driver.run(setFields, { '#threads-select': setting, '#prompt': 'Once upon a time', '#temperature': 0, '#max-tokens': values.tokens });
      const before = await driver.run(() => window.__glassbox.generations);
      await driver.click('#generate');
      await driver.waitFor((n) => window.__glassbox.generations > n, before);
      await driver.run(() => window.__glassbox.whenIdle());
      const shown = await driver.run(() => ({
        rate: Number(document.querySelector('#stat-rate strong')?.textContent),
        engine: Number(document.querySelector('#stat-engine strong')?.textContent),
        said: `${document.querySelector('#stat-threads')?.textContent} (${document.querySelector('#stat-threads-why')?.textContent})`,
      }));
      const r = runs.get(setting);
      r.rate.push(shown.rate);
      r.engine.push(shown.engine);
      r.said = shown.said;
    }
  for (const [setting, r] of runs)
    console.log(`  ${setting.padEnd(5)} ${median(r.rate).toFixed(1).padStart(7)} tok/s (${range(r.rate)})  engine ${median(r.engine).toFixed(2)} ms/token (${range(r.engine)})  page said: ${r.said}`);
} finally {
  await driver.close();
  await server.close();
}
