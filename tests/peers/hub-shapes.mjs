#!/usr/bin/env node
// The page's load time and speed for each hub catalog shape (web/hub-models.json), in headless Chromium with
// the single-threaded engine (the page served without cross-origin isolation): random-weight Q8_0 files of
// the real shapes (make-hub-shape.py, into build/hub-shapes/, once) served by the tests' stand-in hub at the
// catalog's paths, loaded through the catalog's own buttons. Prints a Markdown table. Not part of CI.
//   node tests/peers/hub-shapes.mjs [--models smollm2-135m,gpt2] [--tokens 16]
// Needs `npm run build` (dist/) and models/stories260K.bin (the page's default model).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../../web/tools/static-server.mjs';
import { startHubServer } from '../browser/hub-server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const catalog = JSON.parse(fs.readFileSync(path.join(repo, 'web', 'hub-models.json'), 'utf8'));
// make-hub-shape.py's shape for each catalog entry that the engine runs.
const SHAPE_OF = {
  'smollm2-135m-instruct': 'smollm2-135m',
  'gemma-3-270m-it': 'gemma3-270m',
  'smollm2-360m-instruct': 'smollm2-360m',
  'qwen2.5-0.5b-instruct': 'qwen2.5-0.5b',
  'qwen3-0.6b': 'qwen3-0.6b',
  'llama-3.2-1b-instruct': 'llama-3.2-1b',
  gpt2: 'gpt2',
};
const PROMPT = 'the cat sat on the mat and the dog ran in the park with the old man '.repeat(2).trim();

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []));
const wanted = args.models ? new Set(args.models.split(',')) : new Set(Object.values(SHAPE_OF));
const tokens = Number(args.tokens ?? 16);
const entries = catalog.models.filter((e) => SHAPE_OF[e.id] && wanted.has(SHAPE_OF[e.id]));

const shapesDir = path.join(repo, 'build', 'hub-shapes');
const hubRoot = path.join(shapesDir, 'hub');
fs.mkdirSync(shapesDir, { recursive: true });
for (const entry of entries) {
  const shape = SHAPE_OF[entry.id];
  const file = path.join(shapesDir, `${shape}.gguf`);
  if (!fs.existsSync(file)) execFileSync('/usr/bin/python3', [path.join(repo, 'tests', 'peers', 'make-hub-shape.py'), shape, file], { stdio: 'inherit' });
  const served = path.join(hubRoot, entry.repo, 'resolve', entry.revision, entry.file);
  fs.mkdirSync(path.dirname(served), { recursive: true });
  fs.rmSync(served, { force: true });
  fs.symlinkSync(file, served);
}

const hub = await startHubServer(hubRoot);
const site = await startStaticServer({ root: path.join(repo, 'dist'), base: '/', isolation: false });
const browser = await chromium.launch({ executablePath: process.env.GLASSBOX_CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const rows = [];
try {
  const page = await browser.newPage();
  await page.goto(`${site.url}?hub=${encodeURIComponent(hub.url)}`);
  await page.waitForFunction(() => window.__glassbox?.loads >= 1, null, { timeout: 120_000 });
  const threads = await page.textContent('#engine-threads');
  await page.click('#hub-source summary');
  const load = async (entry) => {
    // The worker answers in order: once it answers this, the views' work from the last generation is done
    // and does not count as loading time.
    await page.evaluate(() => window.__glassbox.memory());
    const before = await page.evaluate(() => window.__glassbox.loads + window.__glassbox.failedLoads);
    const started = Date.now();
    await page.click(`#hub-list li[data-id="${entry.id}"] [data-hub-action="${entry.id}:load"]`);
    await page.waitForFunction((n) => window.__glassbox.loads + window.__glassbox.failedLoads > n, before, { timeout: 600_000 });
    if ((await page.evaluate(() => window.__glassbox.modelLabel)) !== entry.name) throw new Error(`${entry.id} did not load: ${await page.textContent('#model-error')}`);
    return (Date.now() - started) / 1000;
  };
  /** A greedy generation from PROMPT; the page's record of it (window.__glassbox.last). */
  const generate = async (maxTokens) => {
    await page.fill('#prompt', PROMPT);
    for (const [id, value] of [['#max-tokens', maxTokens], ['#temperature', 0]]) {
      await page.fill(id, String(value));
      await page.dispatchEvent(id, 'change');
    }
    const before = await page.evaluate(() => window.__glassbox.generations);
    await page.click('#generate');
    await page.waitForFunction((n) => window.__glassbox.generations > n && !window.__glassbox.last.running, before, { timeout: 600_000 });
    const last = await page.evaluate(() => window.__glassbox.last);
    if (last.ids.length !== maxTokens) throw new Error(`asked for ${maxTokens} tokens, got ${last.ids.length} (${last.reason})`);
    return { promptTokens: last.promptIds.length, count: last.ids.length, engineMs: last.engineMs };
  };
  for (const entry of entries) {
    const first = await load(entry); // download from the local hub, SHA-256, into OPFS, into the engine
    const again = await load(entry); // from the browser's copy
    // The worker's forward-pass time: the first step reads the prompt and picks one token, each later step
    // one token. So the prompt's time is one step's less than a one-token generation's.
    const one = await generate(1);
    const many = await generate(tokens);
    const stepMs = (many.engineMs - one.engineMs) / (many.count - 1);
    rows.push({
      shape: SHAPE_OF[entry.id],
      mib: fs.statSync(path.join(shapesDir, `${SHAPE_OF[entry.id]}.gguf`)).size / 2 ** 20,
      first,
      again,
      prompt: one.promptTokens / Math.max(1e-3, (one.engineMs - stepMs) / 1000),
      promptTokens: one.promptTokens,
      generation: 1000 / stepMs,
    });
    await page.click(`#hub-list li[data-id="${entry.id}"] [data-hub-action="${entry.id}:delete"]`);
    console.error(`${entry.id}: done`);
  }
  console.log(`Chromium ${browser.version()}, the page's single-threaded engine (${threads.replace(/^, /, '')}); random-weight Q8_0 files of the catalog's shapes from a local server.\n`);
  console.log("| shape | file | first load (download, SHA-256, load) | load from the browser's copy | prompt | generation |");
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.shape} | ${r.mib.toFixed(0)} MiB | ${r.first.toFixed(1)} s | ${r.again.toFixed(1)} s | ${r.prompt.toFixed(1)} tok/s (${r.promptTokens} tokens) | ${r.generation.toFixed(1)} tok/s |`);
  }
} finally {
  await browser.close();
  await site.close();
  await hub.close();
}
