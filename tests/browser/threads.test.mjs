// The threaded engine in the browser. Served with COOP/COEP (the project's static server sends them by default)
// the page is cross-origin isolated, and its engine worker loads the pthreads build, which starts its threads
// as Web Workers inside that worker (nested workers); served without them, the single-threaded build runs.
// Greedy generation must give the same tokens in both. (The threaded module is tested here, in Chromium, and
// not under Node: a pthreads run hung under Node 20, see DESIGN.md.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, generate, haveStories, openPage, repo, screenshot, skipOrFail, whenModelLoaded } from './harness.mjs';

const PROMPTS = ['Once upon a time', 'The little dog was happy because'];

const suite = browserSuite();
const { withPage } = suite;

/**
 * Opens the page at `url`, with its service worker blocked (it would isolate a page served without the
 * headers on a later visit), and generates each prompt greedily. Returns what the page says about its engine.
 */
async function runPage(url, served, shot) {
  const { context, page, errors } = await openPage(suite.env, { url, serviceWorkers: 'block' });
  try {
    const info = await whenModelLoaded(page);
    const isolated = await page.evaluate(() => self.crossOriginIsolated);
    const footer = await page.textContent('.footer');
    const runs = [];
    for (const prompt of PROMPTS) {
      const result = await generate(page, prompt, { temperature: 0, maxTokens: 60 });
      assert.equal(result.error, null, `${prompt}: ${JSON.stringify(result.error)}`);
      runs.push({ promptIds: result.promptIds, ids: result.ids, text: result.text });
    }
    await screenshot(page, shot);
    assert.deepEqual(errors, [], 'no console errors');
    return { isolated, footer, threads: info.threads, runs, served: [...served] };
  } finally {
    await context.close();
  }
}

let threaded = null;

test('1. with COOP/COEP the page is cross-origin isolated and runs the threaded build on more than one thread', async (t) => {
  if (!haveStories) return skipOrFail(t, 'models/stories260K.bin and models/tok512.bin are absent: run scripts/fetch-models.sh');
  const cores = await (async () => {
    const { context, page } = await openPage(suite.env, { serviceWorkers: 'block' });
    const n = await page.evaluate(() => navigator.hardwareConcurrency);
    await context.close();
    return n;
  })();
  if (cores < 2) return skipOrFail(t, `the browser reports ${cores} core: the page runs one thread there`);
  suite.env.served.length = 0;
  threaded = await runPage(suite.env.server.url, suite.env.served, 'threads-isolated');
  assert.equal(threaded.isolated, true, 'crossOriginIsolated');
  assert.ok(threaded.served.some((p) => /\/assets\/glassbox-engine-threads-[\w-]+\.wasm$/.test(p)), 'the threaded .wasm was loaded');
  assert.ok(threaded.served.some((p) => /\/assets\/glassbox-engine-threads-[\w-]+\.mjs$/.test(p)), 'the threaded module was loaded as a file of its own (its threads import it by URL)');
  assert.ok(!threaded.served.some((p) => /\/assets\/glassbox-engine-(?!threads)[\w-]+\.wasm$/.test(p)), 'the single-threaded .wasm was not loaded');
  const shown = Number(threaded.footer.match(/(\d+) threads/)?.[1]);
  assert.equal(shown, Math.min(cores, 8), `the footer names the thread count: ${threaded.footer}`);
  // Threads running in the engine's module, as Emscripten counts them: one per pthread Worker started.
  assert.ok(threaded.threads > 1, `the session runs ${threaded.threads} threads`);
  assert.equal(threaded.threads, shown, 'every thread asked for started (the Worker pool was large enough)');
});

test('2. without the headers the single-threaded build runs, and greedy generation gives the same tokens', async (t) => {
  if (!haveStories) return skipOrFail(t, 'models/stories260K.bin and models/tok512.bin are absent: run scripts/fetch-models.sh');
  const served = [];
  const plain = await suite.env.startServer({ isolation: false, onRequest: (p) => served.push(p) });
  try {
    const single = await runPage(plain.url, served, 'threads-not-isolated');
    assert.equal(single.isolated, false, 'not crossOriginIsolated');
    assert.match(single.footer, /single-threaded build/);
    assert.equal(single.threads, 1);
    assert.ok(single.served.some((p) => /\/assets\/glassbox-engine-(?!threads)[\w-]+\.wasm$/.test(p)), 'the single-threaded .wasm was loaded');
    assert.ok(!single.served.some((p) => p.includes('glassbox-engine-threads')), 'nothing of the threaded build was loaded');
    if (!threaded) return t.skip('the threaded run (test 1) did not run');
    for (const [i, prompt] of PROMPTS.entries()) {
      assert.deepEqual(threaded.runs[i].promptIds, single.runs[i].promptIds, `prompt ids of ${JSON.stringify(prompt)}`);
      assert.ok(single.runs[i].ids.length > 10, 'a real continuation');
      assert.deepEqual(threaded.runs[i].ids, single.runs[i].ids, `generated ids of ${JSON.stringify(prompt)}`);
      assert.equal(threaded.runs[i].text, single.runs[i].text);
    }
  } finally {
    await plain.close();
  }
});

test('3. a host without the headers: the service worker adds them, and the next visit runs the threaded build', async (t) => {
  if (!haveStories) return skipOrFail(t, 'models/stories260K.bin and models/tok512.bin are absent: run scripts/fetch-models.sh');
  if (!threaded) return t.skip('the threaded run (test 1) did not run');
  const served = [];
  const plain = await suite.env.startServer({ isolation: false, onRequest: (p) => served.push(p) });
  const { context, page, errors } = await openPage(suite.env, { url: plain.url });
  try {
    await whenModelLoaded(page);
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), false, 'the first visit is not isolated');
    assert.match(await page.textContent('.footer'), /single-threaded build/);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload(); // now under the service worker
    const info = await whenModelLoaded(page);
    assert.equal(await page.evaluate(() => navigator.serviceWorker.controller !== null), true, 'the service worker serves the page');
    assert.equal(await page.evaluate(() => self.crossOriginIsolated), true, 'the service worker made the page cross-origin isolated');
    assert.match(await page.textContent('.footer'), /threaded build, \d+ threads/);
    assert.equal(info.threads, threaded.threads);
    const result = await generate(page, PROMPTS[0], { temperature: 0, maxTokens: 60 });
    assert.deepEqual(result.ids, threaded.runs[0].ids, 'the same tokens');
    await screenshot(page, 'threads-service-worker');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await plain.close();
  }
});

/** The thread statistic beside the speed: the count in use and the reason in the engine's words. */
async function threadStats(page) {
  return page.evaluate(() => ({
    inUse: document.querySelector('#stat-threads')?.textContent ?? null,
    why: document.querySelector('#stat-threads-why')?.textContent ?? null,
    title: document.querySelector('#stat-threads')?.getAttribute('title') ?? null,
  }));
}

test('4. threads only where they pay: auto runs stories260K on one thread and says why; the user can force more, with the same tokens', async (t) => {
  if (!haveStories) return skipOrFail(t, 'models/stories260K.bin and models/tok512.bin are absent: run scripts/fetch-models.sh');
  if (!threaded) return t.skip('the threaded run (test 1) did not run');
  const { context, page, errors } = await openPage(suite.env, { serviceWorkers: 'block' });
  try {
    await whenModelLoaded(page);
    assert.equal(await page.inputValue('#threads-select'), 'auto', 'auto is the default');
    const auto = await generate(page, PROMPTS[0], { temperature: 0, maxTokens: 60 });
    assert.equal(auto.error, null);
    let shown = await threadStats(page);
    // The engine's rule (glassbox/thread_choice.hpp): each token of stories260K is too small to hand to a thread.
    assert.equal(shown.inUse, '1 thread', JSON.stringify(shown));
    assert.match(shown.why, /^1 thread: each token is too small for threads to pay$/);
    assert.match(shown.title, /Prompt: /);

    await page.selectOption('#threads-select', String(threaded.threads));
    const forced = await generate(page, PROMPTS[0], { temperature: 0, maxTokens: 60 });
    shown = await threadStats(page);
    assert.equal(shown.inUse, `${threaded.threads} threads`, JSON.stringify(shown));
    assert.equal(shown.why, `${threaded.threads} threads: as chosen`);
    assert.match(shown.title, /auto would use 1/);
    assert.deepEqual(forced.ids, auto.ids, 'forced threads give the same tokens');

    await page.selectOption('#threads-select', '1'); // fewer than the threads started
    await generate(page, PROMPTS[0], { temperature: 0, maxTokens: 10 });
    assert.equal((await threadStats(page)).inUse, '1 thread', 'a forced single thread');

    await page.selectOption('#threads-select', 'auto');
    await generate(page, PROMPTS[0], { temperature: 0, maxTokens: 10 });
    assert.equal((await threadStats(page)).inUse, '1 thread', 'back to auto');
    await screenshot(page, 'threads-auto');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
