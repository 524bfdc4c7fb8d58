// Browser tests of the page's model-loading flow (issue 11): which tokenizer goes with a model, what the page
// says about every file it is given, Generate and Cancel while a model downloads, the wording of load errors,
// and the page's boundaries (its Content-Security-Policy, the origins it talks to). One test per bug, each
// written to fail before its fix. Run: node --test --test-concurrency=1 tests/browser/loading.test.mjs
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { browserSuite, drop, dropAndSettle, fileOf, generate, haveStories, heatmapGeometry, loadCounts, loadEnded, modelFile, openPage, readGolden, repo, screenshot, skipOrFail, whenModelLoaded } from './harness.mjs';

const suite = browserSuite();
const { withPage } = suite;
const servers = [];
after(async () => {
  for (const server of servers) await server.close();
});

const haveAll = (...names) => names.every((n) => fs.existsSync(modelFile(n)));
const model = modelFile;

/** The text of an element, or null without waiting when there is none (the page before a fix may lack it). */
const textOf = (page, selector) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
/** The notices the model card shows now: the error and the notes, visible ones only. */
const visibleNotices = (page) =>
  page.$$eval('#model-card .notice, #model-card .files-note', (nodes) => nodes.filter((n) => !n.hidden && n.offsetParent !== null).map((n) => n.id));

async function loadUrl(page, modelUrl, tokenizerUrl = '') {
  const before = await loadCounts(page);
  await page.click('#url-source summary');
  await page.fill('#model-url', modelUrl);
  await page.fill('#tokenizer-url', tokenizerUrl);
  await page.click('#url-form button[type="submit"]');
  return loadEnded(page, before);
}

/** Greedy output of the model loaded now: the golden start of stories260K's "Once upon a time", when known. */
async function expectStoriesStillWork(page) {
  const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 20 });
  assert.equal(result.ids.length, 20, 'the previous model still generates');
  const golden = readGolden()?.find((g) => g.prompt === 'Once upon a time');
  if (golden) assert.deepEqual(result.ids, golden.generated_ids.slice(0, 20), 'with stories260K\'s own tokens');
}

test('1. a GGUF uses its own tokenizer, not one chosen for an earlier model', async (t) => {
  if (!haveAll('stories260K.gguf', 'tokenizer.bin')) return skipOrFail(t, 'models/stories260K.gguf or models/tokenizer.bin is absent: run scripts/fetch-models.sh');
  await withPage(t, async ({ page, errors }) => {
    const gguf = fileOf('stories260K.gguf');
    // The 32,000-token Llama 2 tokenizer with the 512-token checkpoint: the right error.
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin'), fileOf('tokenizer.bin')]), 'failed');
    assert.match(await textOf(page, '#model-error'), /This tokenizer does not belong to this model/);
    // The GGUF dropped alone reads its own tokenizer, not the one left in the tokenizer field.
    assert.equal(await dropAndSettle(page, [gguf]), 'loaded', `the GGUF loads (${await textOf(page, '#model-error')})`);
    assert.equal(await page.isVisible('#model-error'), false, 'the earlier error is gone');
    assert.equal(await textOf(page, '#model-description'), 'stories260K.gguf with its own tokenizer, from your files.');
    assert.match(await textOf(page, '#files-note'), /stories260K\.gguf carries its own tokenizer: tokenizer\.bin, chosen before, was not used/);
    // The same with tok512.bin left over, which would load without a word if it were used.
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin'), fileOf('tok512.bin')]), 'loaded');
    assert.equal(await dropAndSettle(page, [gguf]), 'loaded');
    assert.equal(await textOf(page, '#model-description'), 'stories260K.gguf with its own tokenizer, from your files.');
    assert.equal((await page.evaluate(() => window.__glassbox.info)).parameters, 260032 + 512 * 64, 'the GGUF is the model loaded');
    // Dropped together, the tokenizer is the person's explicit choice, and the GGUF goes with it.
    assert.equal(await dropAndSettle(page, [gguf, fileOf('tok512.bin')]), 'loaded');
    assert.equal(await textOf(page, '#model-description'), 'stories260K.gguf with the tokenizer tok512.bin, from your files.');
    await screenshot(page, 'loading-01-gguf-own-tokenizer');
    assert.deepEqual(errors, []);
  });
});

test('2. Generate waits while a model downloads, and Cancel keeps the previous model', async (t) => {
  const slow = await suite.env.startServer({ base: '/elsewhere/', bytesPerSecond: 250_000, cors: true });
  servers.push(slow);
  await withPage(
    t,
    async ({ page, errors }) => {
      const before = await loadCounts(page);
      await page.click('#url-source summary');
      await page.fill('#model-url', new URL('models/stories260K.bin', slow.url).href);
      await page.fill('#tokenizer-url', new URL('models/tok512.bin', slow.url).href);
      await page.click('#url-form button[type="submit"]');
      await page.waitForFunction(() => /stories260K\.bin · [\d.]+ KiB of 1\.0 MiB/.test(document.querySelector('#progress-label').textContent));
      assert.equal(await page.isDisabled('#generate'), true, 'Generate is disabled while the new model downloads');
      assert.match(await textOf(page, '#status'), /Loading stories260K\.bin/);
      assert.equal(await page.isVisible('#cancel-load'), true, 'the download can be cancelled');
      await screenshot(page, 'loading-02-downloading');
      await page.click('#cancel-load');
      assert.equal(await loadEnded(page, before), 'failed');
      assert.match(await textOf(page, '#model-error'), /Loading was cancelled/);
      assert.match(await textOf(page, '#model-error'), /stories260K is still loaded/);
      assert.equal(await page.isVisible('#progress'), false);
      assert.match(await textOf(page, '#status'), /stories260K · ready/);
      assert.equal(await page.isEnabled('#generate'), true);
      await screenshot(page, 'loading-02-cancelled');
      await expectStoriesStillWork(page);
      // A round trip to the worker: a load it had still finished before answering would be counted by now.
      await page.evaluate(() => window.__glassbox.memory());
      assert.deepEqual(await loadCounts(page), { loads: before.loads, failedLoads: before.failedLoads + 1 }, 'the cancelled download never replaces the model');
      assert.deepEqual(errors, []);
    },
    { serviceWorkers: 'block' }, // the download goes straight to the slow server
  );
});

test('3. a tokenizer dropped alone is acknowledged, and the previous error goes', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await dropAndSettle(page, [fileOf('junk.bin', crypto.randomBytes(4096))]), 'failed');
    assert.equal(await page.isVisible('#model-error'), true);
    await drop(page, [fileOf('tok512.bin')]);
    await page.waitForSelector('#drop-note', { state: 'visible' });
    assert.equal(await page.isVisible('#model-error'), false, 'the error about junk.bin is gone');
    assert.equal(await page.isVisible('#drop-note'), true, 'the drop is acknowledged');
    assert.match(await textOf(page, '#drop-note'), /tok512\.bin is the tokenizer now/);
    await screenshot(page, 'loading-03-tokenizer-alone');
    // The checkpoint dropped next goes with it.
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin')]), 'loaded');
    assert.match(await textOf(page, '#files-note'), /stories260K\.bin goes with the tokenizer chosen before, tok512\.bin/);
    assert.deepEqual(errors, []);
  });
});

test('4. a broken file dropped after a model and its tokenizer gets one message, the right one', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin'), fileOf('tok512.bin')]), 'loaded');
    const broken = [
      ['empty.bin', Buffer.alloc(0), /This file is not a model glassbox can read/],
      // A llama2.c checkpoint has no magic number: cut short, it is no checkpoint the core can recognise.
      ['truncated.bin', fs.readFileSync(model('stories260K.bin')).subarray(0, 400_000), /This file is not a model glassbox can read.*a truncated file/],
      ...(haveAll('stories260K.gguf') ? [['truncated.gguf', fs.readFileSync(model('stories260K.gguf')).subarray(0, 400_000), /This file is cut short/]] : []),
      // Cut within its metadata (issue 27: this once read "damaged", with a parser detail), or its header.
      ...(haveAll('stories260K.gguf') ? [['cut-10k.gguf', fs.readFileSync(model('stories260K.gguf')).subarray(0, 10_240), /This file is cut short/]] : []),
      ...(haveAll('stories260K.gguf') ? [['cut-100.gguf', fs.readFileSync(model('stories260K.gguf')).subarray(0, 100), /This file is cut short/]] : []),
      ['random.bin', crypto.randomBytes(4096), /This file is not a model glassbox can read/],
    ];
    for (const [name, bytes, title] of broken) {
      assert.equal(await dropAndSettle(page, [fileOf(name, bytes)]), 'failed', name);
      assert.match(await textOf(page, '#model-error'), title, name);
      assert.match(await textOf(page, '#model-error'), /stories260K\.bin is still loaded/, name);
      assert.deepEqual(await visibleNotices(page), ['model-error'], `${name}: the error is the only notice`);
      if (name === 'truncated.gguf') await screenshot(page, 'loading-04-one-message');
    }
    assert.deepEqual(errors, []);
  });
});

test('5. every dropped file is used or named as not used', async (t) => {
  if (!haveAll('stories260K.gguf')) return skipOrFail(t, 'models/stories260K.gguf is absent: run scripts/fetch-models.sh');
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin'), fileOf('tok512.bin'), fileOf('stories260K.gguf')]), 'loaded');
    assert.equal(await textOf(page, '#model-description'), 'stories260K.bin with the tokenizer tok512.bin, from your files.');
    assert.equal(await page.isVisible('#drop-note'), true);
    assert.match(await textOf(page, '#drop-note'), /Not used: stories260K\.gguf/);
    await screenshot(page, 'loading-05-ignored-file');
    // Two files that are both used: nothing to say.
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin'), fileOf('tok512.bin')]), 'loaded');
    assert.equal(await page.isVisible('#drop-note'), false);
    assert.deepEqual(errors, []);
  });
});

test('6a. a checkpoint loaded by URL without its tokenizer is asked for a tokenizer URL', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await loadUrl(page, new URL('models/stories260K.bin', page.url()).href), 'failed');
    const message = await textOf(page, '#model-error');
    assert.match(message, /This model needs its tokenizer file too/);
    assert.match(message, /Tokenizer URL/, 'the advice names the URL form\'s field');
    assert.doesNotMatch(message, /Choose it as the tokenizer/, 'not the file picker\'s words');
    // The file picker keeps its own words.
    await page.click('#files-source summary');
    await page.setInputFiles('#model-file', model('stories260K.bin'));
    const before = await loadCounts(page);
    await page.click('#load-files');
    assert.equal(await loadEnded(page, before), 'failed');
    assert.match(await textOf(page, '#model-error'), /Choose it as the tokenizer/);
    assert.deepEqual(errors, []);
  });
});

test('6b. a web page (or other text) given as a model is called what it is', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await loadUrl(page, new URL('index.html', page.url()).href), 'failed');
    const message = await textOf(page, '#model-error');
    assert.match(message, /This is a web page, not a model file/);
    assert.doesNotMatch(message, /dim must be/);
    await screenshot(page, 'loading-06b-web-page');
    // A saved page dropped as a file, behind a byte-order mark and blank lines, is one too.
    const html = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\n  \r\n<html><body>Not found</body></html>')]);
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin', html)]), 'failed');
    assert.match(await textOf(page, '#model-error'), /This is a web page, not a model file/);
    // Other text is called text, quoted: here a Git LFS pointer, what a repository gives without its LFS files.
    const pointer = Buffer.from('version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 1056540\n');
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin', pointer)]), 'failed');
    assert.match(await textOf(page, '#model-error'), /This is a text file, not a model file.*it is a Git LFS pointer/);
    // Any other text where a model belongs is quoted.
    assert.equal(await dropAndSettle(page, [fileOf('stories260K.bin', Buffer.from('Entry not found\n'))]), 'failed');
    assert.match(await textOf(page, '#model-error'), /This is a text file, not a model file.*it starts "Entry not found"/);
    await expectStoriesStillWork(page);
    assert.deepEqual(errors, []);
  });
});

test('6c. a model that is not cached, loaded while offline, says the browser is offline', async (t) => {
  if (!haveStories || !haveAll('stories260K.gguf')) return skipOrFail(t, 'models/stories260K.gguf is absent: run scripts/fetch-models.sh');
  const server = await suite.env.startServer();
  servers.push(server);
  const session = await openPage(suite.env, { url: server.url });
  try {
    const { page, context, errors } = session;
    await whenModelLoaded(page);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await server.close(); // the site is out of reach
    await context.setOffline(true);
    const before = await loadCounts(page);
    await page.selectOption('#model-select', 'stories260K-gguf'); // not in the offline cache
    assert.equal(await loadEnded(page, before), 'failed');
    const message = await textOf(page, '#model-error');
    assert.match(message, /The browser is offline/);
    assert.doesNotMatch(message, /CORS/, 'no guessing at causes the browser can rule out');
    assert.match(message, /stories260K is still loaded/);
    await screenshot(page, 'loading-06c-offline');
    await expectStoriesStillWork(page);
    assert.deepEqual(errors.filter((e) => !/Failed to load resource|ERR_INTERNET_DISCONNECTED/.test(e)), []);
  } finally {
    await session.context.close();
  }
});

test('6d. the heatmap tooltip shows a tiny weight as a number, not as 0.0000', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 30 });
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    const size = result.promptIds.length + result.ids.length - 1;
    // The smallest weight of layer 0, read from the trace (not from the view).
    const trace = await page.evaluate(() => window.__glassbox.attention(0, -1));
    let smallest = { weight: Infinity };
    for (let h = 0; h < trace.heads; h++) {
      for (let q = 0; q < size; q++) {
        for (let k = 0; k <= q; k++) {
          const weight = trace.matrix[(h * size + q) * size + k];
          if (weight > 0 && weight < smallest.weight) smallest = { weight, h, q, k };
        }
      }
    }
    assert.ok(smallest.weight < 5e-5, `layer 0 has a weight below 0.00005 to look at (${smallest.weight})`);
    await page.click(`.head-tile[data-head="${smallest.h}"]`);
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    const box = await page.$eval('canvas.heatmap-overlay', (c) => c.getBoundingClientRect().toJSON());
    const geometry = await heatmapGeometry(page, size);
    await page.mouse.move(box.x + geometry.left + (smallest.k + 0.5) * geometry.cell, box.y + geometry.top + (smallest.q + 0.5) * geometry.cell);
    await page.waitForSelector('.tooltip:not([hidden])');
    const shown = (await page.$$eval('.tooltip dd', (dds) => dds.map((d) => d.textContent)))[2];
    assert.equal(shown, smallest.weight.toExponential(1), `weight ${smallest.weight} of head ${smallest.h}, query ${smallest.q}, key ${smallest.k}`);
    await screenshot(page, 'loading-06d-tiny-weight');
    assert.deepEqual(errors, []);
  });
});

test('7. the page works under its Content-Security-Policy, which refuses inline scripts and eval', async (t) => {
  const other = await suite.env.startServer({ base: '/elsewhere/', cors: true });
  servers.push(other);
  const requests = [];
  const watch = async (context) => {
    context.on('request', (request) => requests.push(request.url()));
    // Before any script of the page runs (an init script is the browser's own, outside the page's policy).
    await context.addInitScript(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
    });
  };
  await withPage(
    t,
    async ({ page, errors }) => {
      // One policy, in the page and in the server's header (which also covers the worker scripts).
      const meta = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content).catch(() => null);
      assert.ok(meta, 'index.html carries a Content-Security-Policy');
      const response = await fetch(suite.env.server.url);
      assert.equal(response.headers.get('content-security-policy'), meta, 'the server sends the page\'s policy as a header');
      assert.equal(response.headers.get('access-control-allow-origin'), null, 'the site\'s own files are not open to other sites');
      for (const word of ["'unsafe-inline'", "'unsafe-eval'"]) assert.ok(!meta.includes(word), `no ${word}`);
      assert.match(meta, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
      // The whole page works under it: the threaded engine (Blob-started threads), loading, generating.
      assert.match(await textOf(page, '.footer'), /threaded build/);
      await expectStoriesStillWork(page);
      await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
      assert.equal(await loadUrl(page, new URL('models/stories260K.bin', other.url).href, new URL('models/tok512.bin', other.url).href), 'loaded');
      await expectStoriesStillWork(page);
      assert.deepEqual(await page.evaluate(() => window.__violations), [], 'no violation while the page works');
      assert.deepEqual(errors, []);
      // Every request stayed on the page's origin, except the model the person chose on another site.
      const origin = new URL(page.url()).origin;
      const elsewhere = [...new Set(requests.filter((u) => /^https?:/.test(u) && new URL(u).origin !== origin))];
      assert.deepEqual(elsewhere.sort(), [new URL('models/stories260K.bin', other.url).href, new URL('models/tok512.bin', other.url).href]);
      // What the policy is for: an injected inline script and eval are refused.
      await page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__inlineRan = true';
        document.head.append(script);
      });
      await page.waitForFunction(() => window.__violations.some((v) => v.blocked === 'inline'));
      assert.equal(await page.evaluate(() => window.__inlineRan), undefined, 'the inline script did not run');
      assert.equal(await page.evaluate(() => window.__violations.find((v) => v.blocked === 'inline').directive), 'script-src-elem');
      // A string run as code (eval called from the test itself would be the debugger's, which the policy lets by).
      await page.evaluate(() => setTimeout('window.__evalRan = true', 0));
      await page.waitForFunction(() => window.__violations.some((v) => v.blocked === 'eval'));
      assert.equal(await page.evaluate(() => window.__evalRan), undefined, 'the string was not run');
      assert.equal(await page.evaluate(() => window.__violations.find((v) => v.blocked === 'eval').directive), 'script-src');
    },
    { beforeLoad: watch },
  );
});

test('8. what held still holds: a tokenizer as the model, a vocabulary-only GGUF and a failing URL', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await page.click('#files-source summary');
    await page.setInputFiles('#model-file', model('tok512.bin'));
    let before = await loadCounts(page);
    await page.click('#load-files');
    assert.equal(await loadEnded(page, before), 'failed');
    assert.match(await textOf(page, '#model-error'), /tok512\.bin/);
    const vocabOnly = path.join(repo, '..', 'shared', 'tokenizer-vectors', 'ggml-vocab-llama-spm.gguf');
    if (fs.existsSync(vocabOnly)) {
      assert.equal(await dropAndSettle(page, [fileOf('ggml-vocab-llama-spm.gguf', fs.readFileSync(vocabOnly))]), 'failed');
      assert.match(await textOf(page, '#model-error'), /ggml-vocab-llama-spm\.gguf/);
    }
    assert.equal(await loadUrl(page, new URL('models/no-such-model.bin', page.url()).href), 'failed');
    assert.match(await textOf(page, '#model-error'), /Could not download no-such-model\.bin/);
    assert.match(await textOf(page, '#model-error'), /404/);
    assert.match(await textOf(page, '#model-error'), /stories260K is still loaded/);
    await expectStoriesStillWork(page);
    assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
  });
});
