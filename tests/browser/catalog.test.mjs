// The hub catalog (web/hub-models.json, views/hub-panel.ts, worker/hub-cache.ts) against a local stand-in for
// the Hugging Face hub (hub-server.mjs) serving random-weight GGUF files of the catalog's architectures at the
// real files' paths; the page is pointed at it with its `hub` query parameter. No test touches the network.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { browserSuite, generate, outputDir, repo, screenshot } from './harness.mjs';
import { startHubServer } from './hub-server.mjs';

const catalog = JSON.parse(fs.readFileSync(path.join(repo, 'web', 'hub-models.json'), 'utf8'));
const filePath = (entry) => `/${entry.repo}/resolve/${entry.revision}/${entry.file}`;
/** The reference's shape for an entry (write_hub_models.py): Llama 3.x files carry rope_freqs. */
const shapeOf = (entry) => (entry.architecture === 'llama' && /llama-3/i.test(entry.id) ? 'llama3' : entry.architecture);
/** The architectures the engine runs. Gemma 3 joins with one line here once the engine and the reference run it. */
const RUNS = new Set(['llama', 'qwen2', 'qwen3', 'gpt2', 'gemma3']);
const runnable = catalog.models.filter((entry) => RUNS.has(entry.architecture) && !entry.tooLargeDemo);

const suite = browserSuite();
const hubRoot = path.join(outputDir, 'hub-models');
let hub;

before(async () => {
  fs.rmSync(hubRoot, { recursive: true, force: true });
  const pairs = catalog.models.filter((e) => !e.tooLargeDemo).map((e) => `${shapeOf(e)}=${filePath(e).slice(1)}`);
  execFileSync('/usr/bin/python3', [path.join(repo, 'tests', 'browser', 'write_hub_models.py'), hubRoot, ...pairs], { stdio: 'pipe' });
  hub = await startHubServer(hubRoot);
});
after(async () => {
  await hub?.close();
});

const pageUrl = () => `${suite.env.server.url}?hub=${encodeURIComponent(hub.url)}`;
const requestsFor = (entry) => hub.requests.filter((r) => r.path === filePath(entry) && r.method === 'GET');
const row = (entry) => `#hub-list li[data-id="${entry.id}"]`;

async function openHub(page) {
  await page.click('#hub-source summary');
  await page.waitForSelector('#hub-list li');
}

/** Clicks an entry's load button and waits for the load to end; returns whether a model loaded. */
async function loadEntry(page, entry) {
  const before = await page.evaluate(() => ({ loads: window.__glassbox.loads, failed: window.__glassbox.failedLoads, refreshes: window.__glassbox.hubRefreshes }));
  await page.click(`${row(entry)} [data-hub-action="${entry.id}:load"]`);
  await page.waitForFunction((b) => window.__glassbox.hubRefreshes > b.refreshes && (window.__glassbox.loads > b.loads || window.__glassbox.failedLoads > b.failed), before, { timeout: 60_000 });
  return page.evaluate((b) => window.__glassbox.loads > b.loads, before);
}

test('1. the catalog lists each model with its facts, and marks the one too large before any download', async (t) => {
  await suite.withPage(t, async ({ page }) => {
    await openHub(page);
    const rows = await page.$$eval('#hub-list li', (items) => items.map((li) => ({ id: li.dataset.id, state: li.dataset.state, text: li.textContent })));
    assert.equal(rows.length, catalog.models.length);
    assert.match(await page.textContent('#hub-source'), new RegExp(`The files come from ${hub.url.replace(/[.]/g, '\\.')}`));
    for (const entry of catalog.models) {
      const shown = rows.find((r) => r.id === entry.id);
      for (const fact of [entry.name, entry.architecture, entry.quantization, entry.license, 'source']) assert.ok(shown.text.includes(fact), `${entry.id} shows ${fact}`);
      assert.equal(shown.state, entry.tooLargeDemo ? 'too-large' : 'remote', entry.id);
    }
    const large = catalog.models.find((e) => e.tooLargeDemo);
    assert.match(await page.textContent(row(large)), /more than the WebAssembly heap can hold/);
    assert.equal(await page.$(`${row(large)} [data-hub-action$=":load"]`), null, 'no download button for a model too large');
    assert.equal(await page.getAttribute(`${row(large)} a.hub-source`, 'href'), `https://huggingface.co/${large.repo}`);
    assert.equal(requestsFor(large).length, 0);
    await page.locator('#hub-source').screenshot({ path: path.join(outputDir, 'catalog-01-list.png') });
  }, { url: pageUrl() });
});

test('2. each architecture of the catalog loads by URL, generates, and draws its attention; a second load uses the saved copy', async (t) => {
  await suite.withPage(t, async ({ page, errors }) => {
    await openHub(page);
    for (const entry of runnable) {
      assert.equal(await loadEntry(page, entry), true, `${entry.id} loads`);
      assert.equal(await page.evaluate(() => window.__glassbox.modelLabel), entry.name);
      assert.equal(await page.getAttribute(row(entry), 'data-state'), 'cached', `${entry.id} is saved`);
      const result = await generate(page, 'the cat', { maxTokens: 6, temperature: 0 });
      assert.ok(result.ids.length > 0, `${entry.id} generates`);
      assert.equal(result.error, null);
      await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
      const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
      assert.ok(trace.size > 1 && trace.matrix.some((w) => w > 0), `${entry.id}: attention`);
      if (entry.architecture === 'gemma3') {
        // Its first layer slides (window 3 keys in the stand-in): the engine masks older keys, and the
        // heatmap draws them as masked (tests/browser/sliding-window.test.mjs checks the pixels).
        const last = trace.size - 1;
        assert.equal(trace.firstVisible[last], trace.begin + last - 2, `${entry.id}: the window's first key`);
        assert.equal(trace.matrix[last * trace.size], 0, `${entry.id}: a key outside the window weighs 0`);
      }
      if (entry === runnable[0]) await screenshot(page, 'catalog-02-loaded');
    }
    // Loaded again: from the browser's copy, not from the server.
    const first = runnable[0];
    const asked = requestsFor(first).length;
    assert.equal(await loadEntry(page, first), true);
    assert.equal(requestsFor(first).length, asked, 'the saved copy loads without a request');
    assert.match(await page.textContent(row(first)), /Saved in this browser/);
    // Deleting it: the row says so, and the next load downloads again.
    await page.click(`${row(first)} [data-hub-action="${first.id}:delete"]`);
    await page.waitForSelector(`${row(first)}[data-state="remote"]`);
    assert.deepEqual(errors, []);
  }, { url: pageUrl() });
});

test('3. a download shows its progress, can be cancelled, and resumes with a Range request where it stopped', async (t) => {
  await suite.withPage(t, async ({ page }) => {
    await openHub(page);
    const entry = runnable.find((e) => e.architecture === 'qwen2');
    hub.slow.add(filePath(entry));
    // By keyboard: the button takes the focus and Enter starts it.
    await page.focus(`${row(entry)} [data-hub-action="${entry.id}:load"]`);
    await page.keyboard.press('Enter');
    // Some bytes in, more to come: the bars (the panel's, and the row's) and their words say how far it is.
    await page.waitForFunction(() => /· [1-9][\d.]* KiB of [\d.]+ KiB/.test(document.querySelector('#progress-label')?.textContent ?? ''));
    await page.waitForFunction((id) => {
      const bar = document.querySelector(`#hub-list li[data-id="${id}"] progress`);
      return bar && bar.value > 0 && bar.value < bar.max;
    }, entry.id);
    assert.match(await page.textContent(`${row(entry)} .hub-state`), /KiB of [\d.]+ KiB \(\d+%\)/);
    await page.locator('#model-card').screenshot({ path: path.join(outputDir, 'catalog-03-downloading.png') });
    const failed = await page.evaluate(() => window.__glassbox.failedLoads);
    // The keyboard stays on the row: Download became Cancel, and Enter cancels.
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.hubAction), `${entry.id}:cancel`);
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => window.__glassbox.failedLoads > n, failed);
    assert.match(await page.textContent('#model-error'), /Loading was cancelled/);
    await page.waitForSelector(`${row(entry)}[data-state="partial"]`);
    assert.match(await page.textContent(row(entry)), /Partly downloaded/);
    await page.locator('#model-card').screenshot({ path: path.join(outputDir, 'catalog-03-cancelled.png') });

    hub.slow.delete(filePath(entry));
    const asked = requestsFor(entry).length;
    assert.equal(await loadEntry(page, entry), true);
    const resumed = requestsFor(entry).slice(asked);
    assert.equal(resumed.length, 1);
    assert.match(resumed[0].range ?? '', /^bytes=[1-9]\d*-$/, 'the second request asks for the rest');
    assert.equal(await page.getAttribute(row(entry), 'data-state'), 'cached');
  }, { url: pageUrl() });
});

test('4. a connection cut mid-file is resumed with a Range request, and the whole file checks out', async (t) => {
  await suite.withPage(t, async ({ page }) => {
    await openHub(page);
    const entry = runnable.find((e) => e.architecture === 'gpt2');
    hub.cutOnce.add(filePath(entry));
    const asked = requestsFor(entry).length;
    assert.equal(await loadEntry(page, entry), true, 'the model loads after the cut');
    const sent = requestsFor(entry).slice(asked);
    assert.equal(sent.length, 2, 'one request cut, one for the rest');
    assert.equal(sent[0].range, null);
    assert.match(sent[1].range ?? '', /^bytes=[1-9]\d*-$/);
    assert.equal(await page.getAttribute(row(entry), 'data-state'), 'cached');
  }, { url: pageUrl() });
});

test('5. a file whose SHA-256 is not the one stated is refused in plain words and not kept', async (t) => {
  await suite.withPage(t, async ({ page }) => {
    await openHub(page);
    const entry = runnable.find((e) => e.architecture === 'qwen3');
    hub.wrongSha.add(filePath(entry));
    assert.equal(await loadEntry(page, entry), false);
    const message = await page.textContent('#model-error');
    assert.match(message, new RegExp(`${entry.file.replace(/\./g, '\\.')} is not the file the catalog names`));
    assert.match(message, /SHA-256/);
    assert.match(message, /deleted/);
    assert.equal(await page.getAttribute(row(entry), 'data-state'), 'remote', 'the copy was deleted');
    await page.locator('#model-card').screenshot({ path: path.join(outputDir, 'catalog-05-checksum.png') });
    hub.wrongSha.delete(filePath(entry));
  }, { url: pageUrl() });
});
