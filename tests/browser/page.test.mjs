// Browser tests of the built page (dist/), served from a subfolder (/glassbox/) by the project's static
// server and driven in Debian's headless Chromium. Each test saves a screenshot into test-output/.
// Run with `npm run test:browser` (it builds first). GLASSBOX_REQUIRE_MODELS=1 turns skips into failures.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  SUBFOLDER,
  generate,
  goldenPath,
  nativeTokenize,
  openPage,
  readGolden,
  repo,
  screenshot,
  setControls,
  startEnvironment,
  whenModelLoaded,
} from './harness.mjs';

const requireAll = process.env.GLASSBOX_REQUIRE_MODELS === '1';
const haveModel = fs.existsSync(path.join(repo, 'models', 'stories260K.bin')) && fs.existsSync(path.join(repo, 'models', 'tok512.bin'));

/** Skips with a message, or fails when CI requires everything to run. */
function skipOrFail(t, message) {
  if (requireAll) assert.fail(`${message} (GLASSBOX_REQUIRE_MODELS=1)`);
  t.skip(message);
}

let env;
const slowServers = [];
before(async () => {
  env = await startEnvironment();
});
after(async () => {
  for (const server of slowServers) await server.close();
  await env?.close();
});

/** Opens the page, waits for stories260K, runs `body`, always closes the context. */
async function withPage(t, body, options) {
  if (!haveModel) return skipOrFail(t, 'models/stories260K.bin and models/tok512.bin are absent: run scripts/fetch-models.sh');
  const session = await openPage(env, options);
  try {
    await whenModelLoaded(session.page);
    await body(session);
  } finally {
    await session.context.close();
  }
}

test('1. the page loads from a subfolder without console errors', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    assert.match(await page.title(), /glassbox/);
    await page.waitForSelector('#tokens .chip');
    await page.waitForTimeout(200); // late errors (service worker registration, fonts) surface here
    const outside = env.served.filter((p) => !p.startsWith(SUBFOLDER) && p !== SUBFOLDER.slice(0, -1));
    assert.deepEqual(outside, [], 'every request stays inside the subfolder (relative paths)');
    assert.ok(env.served.some((p) => /\/assets\/glassbox-engine-[\w-]+\.wasm$/.test(p)), 'the engine .wasm came from the built assets');
    assert.equal(await page.isEnabled('#generate'), true);
    await screenshot(page, '01-page-loads');
    assert.deepEqual(errors, []);
  });
});

test('2. stories260K loads from the models folder and its info is shown', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.equal(info.parameters, 260032);
    assert.equal(info.layers, 5);
    assert.equal(info.heads, 8);
    assert.equal(info.vocabSize, 512);
    assert.equal(await page.inputValue('#model-select'), 'stories260K');
    const shown = await page.textContent('#model-info');
    assert.match(shown, /Parameters\s*260K/);
    assert.match(shown, /Layers\s*5/);
    assert.match(shown, /Context\s*512 tokens/);
    assert.match(await page.textContent('#status'), /stories260K · ready/);
    for (const file of ['models/manifest.json', 'models/stories260K.bin', 'models/tok512.bin']) {
      assert.ok(env.served.includes(`${SUBFOLDER}${file}`), `${file} was fetched from the site's models folder`);
    }
    // A catalog entry in a format this engine build cannot read is listed but greyed out.
    const formats = await page.evaluate(() => window.__glassbox.formats);
    const gguf = await page.$eval('#model-select option[value="stories260K-gguf"]', (o) => ({ disabled: o.disabled, text: o.textContent }));
    if (formats.includes('gguf')) assert.deepEqual(gguf, { disabled: false, text: 'stories260K (GGUF)' });
    else assert.deepEqual(gguf, { disabled: true, text: 'stories260K (GGUF) — needs GGUF support' });
    await screenshot(page, '02-model-loaded');
    assert.deepEqual(errors, []);
  });
});

test('3. tokenizing in the page gives the native CLI ids and byte spans, live as the user types', async (t) => {
  if (!fs.existsSync(process.env.GLASSBOX_CLI ?? path.join(repo, 'build', 'glassbox'))) {
    return skipOrFail(t, 'build/glassbox is absent (build the native CLI with scripts/build.sh): cannot compare with it');
  }
  await withPage(t, async ({ page, errors }) => {
    const chips = () =>
      page.$$eval('#tokens .chip', (nodes) => nodes.map((n) => ({ id: Number(n.dataset.id), span: [Number(n.dataset.begin), Number(n.dataset.end)] })));
    const expectTokens = async (text) => {
      const native = nativeTokenize(text);
      const expected = native.tokens.map((tk) => ({ id: tk.id, span: tk.bytes }));
      await page.waitForFunction((ids) => [...document.querySelectorAll('#tokens .chip')].map((n) => n.dataset.id).join() === ids, native.ids.join());
      assert.deepEqual(await chips(), expected, `tokens of ${JSON.stringify(text)}`);
    };
    await page.fill('#prompt', 'Once upon a time');
    await expectTokens('Once upon a time');
    assert.deepEqual(nativeTokenize('Once upon a time').ids, [1, 403, 407, 261, 378]);
    // Typing more updates the chips as the user types, byte-fallback tokens for the emoji included.
    await page.focus('#prompt');
    await page.keyboard.press('End');
    await page.keyboard.type(', a big red ball 🙂');
    await expectTokens('Once upon a time, a big red ball 🙂');
    assert.match(await page.textContent('#token-summary'), /^17 tokens · 34 characters · 37 bytes$/);
    // Hovering a chip shows its bytes and byte span.
    await page.hover('#tokens .chip[data-index="4"]');
    const tip = await page.textContent('.tooltip');
    assert.match(tip, /byte span11–16 \(5 bytes\)/);
    assert.match(tip, /piece bytes20 74 69 6D 65/);
    await screenshot(page, '03-tokens');
    assert.deepEqual(errors, []);
  });
});

test('4. greedy generation in the page gives the golden tokens and text of llama2.c', async (t) => {
  const golden = readGolden();
  if (!golden) return skipOrFail(t, `${goldenPath()} is absent: set GLASSBOX_GOLDEN_DIR`);
  await withPage(t, async ({ page, errors }) => {
    for (const record of golden) {
      const maxTokens = record.steps - record.prompt_ids.length + 1;
      const result = await generate(page, record.prompt, { temperature: 0, maxTokens });
      const label = JSON.stringify(record.prompt);
      assert.deepEqual(result.promptIds, record.prompt_ids, `prompt ids of ${label}`);
      assert.deepEqual(result.ids, record.generated_ids, `generated ids of ${label}`);
      assert.equal(result.text, record.decoded_text, `decoded text of ${label}`);
      assert.equal(await page.textContent('#output'), record.decoded_text, `the text shown for ${label}`);
    }
    assert.ok(golden.length >= 2);
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    await screenshot(page, '04-greedy-golden');
    assert.deepEqual(errors, []);
  });
});

test('5. Stop halts generation within one token', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    // From an empty prompt at temperature 1 and seed 42, stories260K writes until its context is full
    // (511 tokens), so Stop always lands mid-generation, however fast the machine.
    await page.fill('#prompt', '');
    await setControls(page, { temperature: 1, topK: 0, topP: 1, seed: 42, maxTokens: 512 });
    await page.click('#generate');
    await page.waitForFunction(() => (window.__glassbox.last?.ids.length ?? 0) >= 12);
    await page.click('#stop');
    const result = await page.evaluate(() => window.__glassbox.whenIdle());
    assert.equal(result.reason, 'stopped', 'the generation ended because of Stop (not by reaching its end first)');
    assert.ok(result.tokensWhenStopClicked >= 12);
    const after = result.ids.length - result.tokensWhenStopClicked;
    assert.ok(after <= 1, `${after} tokens arrived after Stop was clicked (at most 1 may be in flight)`);
    await page.waitForTimeout(250);
    assert.equal(await page.evaluate(() => window.__glassbox.last.ids.length), result.ids.length, 'no token arrives later');
    assert.equal(await page.isEnabled('#generate'), true);
    assert.equal(await page.isEnabled('#stop'), false);
    assert.equal(await page.textContent('#output-meta'), 'stopped');
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    await screenshot(page, '05-stopped');
    assert.deepEqual(errors, []);
  });
});

test('6. the attention heatmap is drawn and every traced row is a causal distribution', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 40 });
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    // The canvas has drawn cells: pixels that are neither transparent, white, nor the mask's grey.
    const drawn = await page.$eval('canvas.heatmap', (canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 0 && !(r > 245 && g > 245 && b > 245) && !(r === 238 && g === 240 && b === 242) && b > r + 20) coloured++;
      }
      return { coloured, width: canvas.width, height: canvas.height };
    });
    assert.ok(drawn.coloured > 500, `the heatmap has ${drawn.coloured} coloured pixels`);
    const size = result.promptIds.length + result.ids.length - 1; // the last token is not fed back yet
    assert.equal(await page.$$eval('.head-tile', (tiles) => tiles.length), 8, 'the all-heads overview shows 8 heads');
    for (let layer = 0; layer < 5; layer++) {
      const trace = await page.evaluate((l) => window.__glassbox.attention(l, -1), layer);
      assert.equal(trace.size, size);
      assert.equal(trace.heads, 8);
      assert.equal(trace.matrix.length, 8 * size * size);
      for (let h = 0; h < 8; h++) {
        for (let q = 0; q < size; q++) {
          const row = (h * size + q) * size;
          let sum = 0;
          for (let k = 0; k <= q; k++) sum += trace.matrix[row + k];
          assert.ok(Math.abs(sum - 1) <= 1e-5, `layer ${layer} head ${h} row ${q} sums to ${sum}`);
          for (let k = q + 1; k < size; k++) assert.equal(trace.matrix[row + k], 0, `layer ${layer} head ${h} row ${q} is zero above the diagonal`);
        }
      }
    }
    // Picking a head from the overview selects it; hovering a row highlights what that token attends to.
    await page.click('.head-tile[data-head="5"]');
    assert.match(await page.textContent('.heatmap-caption'), /Layer 0 · head 5/);
    const box = await page.$eval('canvas.heatmap-overlay', (c) => {
      const r = c.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    });
    await page.mouse.move(box.x + box.w * 0.5, box.y + box.h * 0.8);
    await page.waitForSelector('.tooltip:not([hidden])');
    assert.match(await page.textContent('.panel-title:has(.focus-token)'), /looks, in head 5 of layer 0/);
    const shaded = await page.$$eval('.focus-chip:not(.future)', (chips) => chips.filter((c) => c.style.background).length);
    assert.ok(shaded > 1, 'the hovered token shades the tokens it attends to');
    await screenshot(page, '06-attention');
    assert.deepEqual(errors, []);
  });
});

test('7. a corrupt file shows a plain error and the page still generates', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await page.click('#files-source summary');
    const junk = crypto.randomBytes(4096);
    await page.setInputFiles('#model-file', { name: 'junk.bin', mimeType: 'application/octet-stream', buffer: junk });
    await page.setInputFiles('#tokenizer-file', path.join(repo, 'models', 'tok512.bin'));
    await page.click('#load-files');
    await page.waitForFunction(() => window.__glassbox.failedLoads >= 1);
    const message = await page.textContent('#model-error');
    assert.match(message, /This file is not a model glassbox can read/);
    assert.match(message, /junk\.bin: /, 'the core explains what is wrong with the file');
    assert.match(message, /stories260K is still loaded/);
    assert.equal(await page.isVisible('#model-error'), true);
    // The previous model keeps working: greedy output matches the golden start.
    const golden = readGolden()?.find((g) => g.prompt === 'Once upon a time');
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 20 });
    assert.equal(result.reason, 'length');
    assert.equal(result.ids.length, 20);
    if (golden) assert.deepEqual(result.ids, golden.generated_ids.slice(0, 20));
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    await screenshot(page, '07-corrupt-file');
    // A model without its tokenizer is explained too.
    await page.setInputFiles('#tokenizer-file', []);
    await page.setInputFiles('#model-file', path.join(repo, 'models', 'stories260K.bin'));
    await page.click('#load-files');
    await page.waitForFunction(() => window.__glassbox.failedLoads >= 2);
    assert.match(await page.textContent('#model-error'), /This model needs its tokenizer file too/);
    const console = errors.filter((e) => !/junk|tokenizer/.test(e));
    assert.deepEqual(console, []);
  });
});

test('8. a model and tokenizer load by drag-and-drop and by URL, with a progress bar', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    // Drop both files on the page at once: the tokenizer is told apart by its name.
    const files = ['stories260K.bin', 'tok512.bin'].map((name) => ({ name, base64: fs.readFileSync(path.join(repo, 'models', name)).toString('base64') }));
    await page.evaluate((dropped) => {
      const transfer = new DataTransfer();
      for (const { name, base64 } of dropped) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      document.querySelector('#dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, files);
    await whenModelLoaded(page, 2);
    assert.equal(await page.inputValue('#model-select'), '', 'the catalog no longer claims the model');
    assert.match(await page.textContent('#model-description'), /stories260K\.bin, from your files or a URL/);
    assert.equal(await page.evaluate(() => window.__glassbox.info.parameters), 260032);
    // From a URL on another, slow site (CORS allowed), so the progress bar shows.
    const slow = await env.startServer({ base: '/elsewhere/', bytesPerSecond: 600_000 });
    slowServers.push(slow);
    await page.click('#url-source summary');
    await page.fill('#model-url', new URL('models/stories260K.bin', slow.url).href);
    await page.fill('#tokenizer-url', new URL('models/tok512.bin', slow.url).href);
    await page.click('#url-form button[type="submit"]');
    await page.waitForFunction(() => /stories260K\.bin · [\d.]+ (KiB|MiB) of 1\.0 MiB/.test(document.querySelector('#progress-label').textContent));
    assert.equal(await page.isVisible('#progress'), true);
    await screenshot(page, '08-progress');
    await whenModelLoaded(page, 3);
    assert.equal(await page.isVisible('#progress'), false);
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 10 });
    assert.equal(result.ids.length, 10);
    assert.deepEqual(errors, []);
  }, { serviceWorkers: 'block' }); // the service worker would answer from its cache, too fast to see progress
});

test('9. once loaded, the page works offline (service worker)', async (t) => {
  if (!haveModel) return skipOrFail(t, 'models/stories260K.bin is absent');
  const server = await env.startServer();
  const session = await openPage(env, { url: server.url });
  try {
    const { page } = session;
    await whenModelLoaded(page);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      for (;;) {
        const keys = await caches.keys();
        const cached = await Promise.all(keys.map(async (k) => (await caches.open(k)).keys()));
        const urls = cached.flat().map((r) => r.url);
        if (['models/stories260K.bin', 'models/tok512.bin', 'models/manifest.json', 'index.html'].every((f) => urls.some((u) => u.endsWith(f)))) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    await server.close(); // the site is gone
    await page.reload();
    await whenModelLoaded(page);
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 20 });
    assert.equal(result.ids.length, 20);
    await screenshot(page, '09-offline');
  } finally {
    await session.context.close();
    await server.close();
  }
});

test('10. the GGUF stories260K loads from the catalog with its own tokenizer and gives the golden tokens', async (t) => {
  const golden = readGolden();
  if (!golden) return skipOrFail(t, `${goldenPath()} is absent: set GLASSBOX_GOLDEN_DIR`);
  if (!fs.existsSync(path.join(repo, 'models', 'stories260K.gguf'))) {
    return skipOrFail(t, 'models/stories260K.gguf is absent: run scripts/fetch-models.sh');
  }
  await withPage(t, async ({ page, errors }) => {
    await page.selectOption('#model-select', 'stories260K-gguf');
    await whenModelLoaded(page, 2);
    assert.ok(env.served.includes(`${SUBFOLDER}models/stories260K.gguf`), 'the GGUF file came from the models folder');
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.equal(info.architecture, 'llama');
    assert.equal(info.layers, 5);
    // llama.cpp's converter stored the shared classifier a second time, as output.weight: 260032 + 512 x 64.
    assert.equal(info.parameters, 260032 + 512 * 64);
    for (const record of golden.slice(0, 3)) {
      const maxTokens = record.steps - record.prompt_ids.length + 1;
      const result = await generate(page, record.prompt, { temperature: 0, maxTokens });
      assert.deepEqual(result.promptIds, record.prompt_ids, `prompt ids of ${JSON.stringify(record.prompt)}`);
      assert.deepEqual(result.ids, record.generated_ids, `generated ids of ${JSON.stringify(record.prompt)}`);
    }
    await screenshot(page, '10-gguf-model');
    assert.deepEqual(errors, []);
  });
});
