// Browser tests of the built page (dist/), served from a subfolder (/glassbox/) by the project's static
// server and driven in Debian's headless Chromium. Each test saves a screenshot into test-output/.
// Run with `npm run test:browser` (it builds first). GLASSBOX_REQUIRE_MODELS=1 turns skips into failures.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  SUBFOLDER,
  browserSuite,
  generate,
  goldenPath,
  heatmapGeometry,
  heatmapHighlight,
  nativeTokenize,
  openPage,
  readGolden,
  repo,
  screenshot,
  setControls,
  skipOrFail,
  haveStories,
  whenModelLoaded,
} from './harness.mjs';
import { createEngine, wasmDir } from '../wasm/helpers.mjs';


const suite = browserSuite();
const { withPage } = suite;
const slowServers = [];
/** A weight as the heatmap's tooltip writes it: four decimals, below 0.001 two significant digits (2.3e-6). */
const weightShown = (w) => (w === 0 || w >= 0.001 ? w.toFixed(4) : w.toExponential(1));
after(async () => {
  for (const server of slowServers) await server.close();
});

test('1. the page loads from a subfolder without console errors', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    assert.match(await page.title(), /glassbox/);
    await page.waitForSelector('#tokens .chip');
    // Late errors (service worker registration, fonts) surface once both have settled.
    await page.evaluate(() => Promise.all([navigator.serviceWorker.ready, document.fonts.ready]));
    const outside = suite.env.served.filter((p) => !p.startsWith(SUBFOLDER) && p !== SUBFOLDER.slice(0, -1));
    assert.deepEqual(outside, [], 'every request stays inside the subfolder (relative paths)');
    assert.ok(suite.env.served.some((p) => /\/assets\/glassbox-engine-[\w-]+\.wasm$/.test(p)), 'the engine .wasm came from the built assets');
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
      assert.ok(suite.env.served.includes(`${SUBFOLDER}${file}`), `${file} was fetched from the site's models folder`);
    }
    // This engine build reads GGUF, so the catalog's GGUF entry is offered like any other.
    assert.ok((await page.evaluate(() => window.__glassbox.formats)).includes('gguf'), 'the engine reports GGUF support');
    const gguf = await page.$eval('#model-select option[value="stories260K-gguf"]', (o) => ({ disabled: o.disabled, text: o.textContent }));
    assert.deepEqual(gguf, { disabled: false, text: 'stories260K (GGUF)' });
    await screenshot(page, '02-model-loaded');
    assert.deepEqual(errors, []);
  });
});

test('2c. the sampling controls start at the engine\'s defaults, and the footer names the engine build', async (t) => {
  const engineFile = path.join(wasmDir, 'glassbox-engine.mjs');
  if (!fs.existsSync(engineFile)) return skipOrFail(t, `${engineFile} is absent: build the WASM engine`);
  // What the core says, asked directly under Node from the same build the page was made from.
  const node = await createEngine();
  const [defaults, build, version] = [node.samplerDefaults(), node.buildDescription(), node.version()];
  node.dispose();
  await withPage(t, async ({ page, errors }) => {
    const shown = {};
    for (const [key, id] of Object.entries({ temperature: '#temperature', topK: '#top-k', topP: '#top-p', seed: '#seed' })) {
      shown[key] = Number(await page.inputValue(id));
    }
    assert.deepEqual(shown, defaults, 'each control shows the core\'s default');
    assert.deepEqual(await page.evaluate(() => window.__glassbox.samplerDefaults), defaults);
    assert.equal(await page.textContent('#engine-build'), build);
    assert.ok(build.includes(version), `${build} names version ${version}`);
    // An emptied field falls back to the engine's default too.
    await page.fill('#top-p', '');
    await page.dispatchEvent('#top-p', 'change');
    assert.equal(Number(await page.inputValue('#top-p')), defaults.topP);
    assert.deepEqual(errors, []);
  });
});

test('2b. a catalog entry in a format the engine cannot read is listed, greyed out', async (t) => {
  // The site's catalog gains an entry in a made-up format: the page must name it and refuse to load it.
  const route = async (context) =>
    context.route('**/models/manifest.json', async (r) => {
      const manifest = await (await r.fetch()).json();
      manifest.models.push({ id: 'future', name: 'A future model', description: '', format: 'onnx', default: true, model: { file: 'future.onnx', bytes: 1 } });
      await r.fulfill({ json: manifest });
    });
  await withPage(
    t,
    async ({ page, errors }) => {
      const future = await page.$eval('#model-select option[value="future"]', (o) => ({ disabled: o.disabled, text: o.textContent }));
      assert.deepEqual(future, { disabled: true, text: 'A future model — needs onnx support' });
      assert.equal(await page.inputValue('#model-select'), 'stories260K', 'the default that can be read is loaded instead');
      assert.ok(!suite.env.served.includes(`${SUBFOLDER}models/future.onnx`), 'the unreadable model was never fetched');
      assert.deepEqual(errors, []);
    },
    { beforeLoad: route, serviceWorkers: 'block' },
  );
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
    // A round trip to the worker: every message it sent before its answer (a late token too) has arrived.
    await page.evaluate(() => window.__glassbox.memory());
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
    // The cell to hover is found from the drawn pixels, and its weight read from the trace, not from the view.
    const geometry = await heatmapGeometry(page, size);
    assert.ok(Math.abs(geometry.maskedHeight - (size - 1) * geometry.cell) <= 2, 'the masked triangle is n - 1 rows high');
    const [q, k] = [Math.floor(size * 0.8), Math.floor(size * 0.4)];
    const head5 = await page.evaluate(() => window.__glassbox.attention(0, 5));
    const weight = head5.matrix[q * size + k];
    await page.mouse.move(box.x + geometry.left + (k + 0.5) * geometry.cell, box.y + geometry.top + (q + 0.5) * geometry.cell);
    await page.waitForSelector('.tooltip:not([hidden])');
    const [query, key, shown] = await page.$$eval('.tooltip dd', (dds) => dds.map((d) => d.textContent));
    assert.ok(query.startsWith(`token ${q} `), `the tooltip names query ${q}: ${query}`);
    assert.ok(key.startsWith(`token ${k} `), `the tooltip names key ${k}: ${key}`);
    assert.equal(shown, weightShown(weight), 'the tooltip shows the trace\'s weight of the hovered cell');
    // The overlay outlines the hovered row up to the diagonal, and the hovered cell inside it.
    const { row, cell } = await heatmapHighlight(page);
    const near = (found, expected, what) => assert.ok(Math.abs(found - expected) <= 2, `${what}: ${found} is not near ${expected}`);
    near(row.y0, geometry.top + q * geometry.cell - 1, 'the row outline\'s top');
    near(row.y1, geometry.top + (q + 1) * geometry.cell + 1, 'the row outline\'s bottom');
    near(row.x0, geometry.left - 1, 'the row outline\'s left');
    near(row.x1, geometry.left + (q + 1) * geometry.cell + 1, 'the row outline ends at the diagonal');
    near(cell.x0, geometry.left + k * geometry.cell - 0.75, 'the cell outline\'s left');
    near(cell.x1, geometry.left + (k + 1) * geometry.cell + 0.75, 'the cell outline\'s right');
    near(cell.y0, geometry.top + q * geometry.cell - 0.75, 'the cell outline\'s top');
    // The strip below shows the same row: the hovered token is marked and the key chip carries its weight.
    assert.match(await page.textContent('.panel-title:has(.focus-token)'), new RegExp(`\\(token ${q}\\) looks, in head 5 of layer 0`));
    assert.equal(await page.$eval('.focus-chip.query', (c) => Number(c.dataset.index)), q);
    assert.match(await page.$eval(`.focus-chip[data-index="${k}"]`, (c) => c.title), new RegExp(`^token ${k}: ${(weight * 100).toFixed(1)}% of token ${q}'s attention$`));
    const shaded = await page.$$eval('.focus-chip:not(.future)', (chips) => chips.filter((c) => c.style.background).length);
    assert.equal(shaded, q + 1, 'the hovered token shades every token it can see');
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
    // Failed loads are reported on the page, not as console errors: none is expected.
    assert.deepEqual(errors, []);
  });
});

test('7b. a file that is no model, given without a tokenizer, is called not a model', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await page.click('#files-source summary');
    await page.setInputFiles('#model-file', { name: 'holiday-photo.jpg', mimeType: 'image/jpeg', buffer: crypto.randomBytes(20000) });
    await page.click('#load-files');
    await page.waitForFunction(() => window.__glassbox.failedLoads >= 1);
    const message = await page.textContent('#model-error');
    assert.match(message, /This file is not a model glassbox can read/);
    assert.match(message, /holiday-photo\.jpg: /, 'the core explains what is wrong with the file');
    assert.doesNotMatch(message, /needs its tokenizer/i, 'random bytes are not taken for a checkpoint missing its tokenizer');
    assert.deepEqual(errors, []);
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
    assert.equal(await page.textContent('#model-description'), 'stories260K.bin with the tokenizer tok512.bin, from your files.');
    assert.equal(await page.evaluate(() => window.__glassbox.info.parameters), 260032);
    assert.equal(await page.isVisible('#files-note'), false, 'nothing to note when both files were dropped together');
    // A model dropped alone goes with the tokenizer chosen before, and the panel says so.
    await page.evaluate((dropped) => {
      const transfer = new DataTransfer();
      for (const { name, base64 } of dropped) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      document.querySelector('#dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, files.slice(0, 1));
    await whenModelLoaded(page, 3);
    assert.match(await page.textContent('#files-note'), /stories260K\.bin goes with the tokenizer chosen before, tok512\.bin/);
    assert.equal(await page.isVisible('#files-note'), true);
    // ... with a way to load it alone instead (which this checkpoint cannot do).
    await page.click('#drop-tokenizer');
    await page.waitForFunction(() => window.__glassbox.failedLoads >= 1);
    assert.match(await page.textContent('#model-error'), /This model needs its tokenizer file too/);
    assert.equal(await page.isVisible('#files-note'), false);
    assert.equal(await page.inputValue('#tokenizer-file'), '');
    // From a URL on another, slow site (CORS allowed), so the progress bar shows.
    const slow = await suite.env.startServer({ base: '/elsewhere/', bytesPerSecond: 600_000, cors: true });
    slowServers.push(slow);
    await page.click('#url-source summary');
    await page.fill('#model-url', new URL('models/stories260K.bin', slow.url).href);
    await page.fill('#tokenizer-url', new URL('models/tok512.bin', slow.url).href);
    await page.click('#url-form button[type="submit"]');
    await page.waitForFunction(() => /stories260K\.bin · [\d.]+ (KiB|MiB) of 1\.0 MiB/.test(document.querySelector('#progress-label').textContent));
    assert.equal(await page.isVisible('#progress'), true);
    await screenshot(page, '08-progress');
    await whenModelLoaded(page, 4);
    assert.equal(await page.isVisible('#progress'), false);
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 10 });
    assert.equal(result.ids.length, 10);
    assert.deepEqual(errors, []);
  }, { serviceWorkers: 'block' }); // the service worker would answer from its cache, too fast to see progress
});

test('9. once loaded, the page works offline (service worker)', async (t) => {
  if (!haveStories) return skipOrFail(t, 'models/stories260K.bin is absent');
  const server = await suite.env.startServer();
  const session = await openPage(suite.env, { url: server.url });
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
    assert.ok(suite.env.served.includes(`${SUBFOLDER}models/stories260K.gguf`), 'the GGUF file came from the models folder');
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

test('11. a prompt longer than the context: the chips scroll, the count warns, the error shows beside Generate', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const context = (await page.evaluate(() => window.__glassbox.info)).contextLength;
    await page.fill('#prompt', 'the cat sat on the mat. '.repeat(120));
    await page.waitForFunction((n) => document.querySelectorAll('#tokens .chip').length > n, context);
    const chips = await page.$$eval('#tokens .chip', (nodes) => nodes.length);
    assert.match(await page.textContent('#token-summary'), new RegExp(`^${chips} tokens — over the ${context}-token context · 2880 characters · 2880 bytes$`));
    const area = await page.$eval('#tokens', (e) => ({ client: e.clientHeight, scroll: e.scrollHeight }));
    assert.ok(area.client <= 240 && area.scroll > 2 * area.client, `the chips scroll inside a short box (${JSON.stringify(area)})`);
    const generateBox = await page.$eval('#generate', (b) => b.getBoundingClientRect().toJSON());
    assert.ok(generateBox.bottom <= 1000, 'Generate stays on the first screen');
    await page.click('#generate');
    const record = await page.evaluate(() => window.__glassbox.whenIdle());
    assert.equal(record.reason, 'error');
    assert.deepEqual(record.ids, []);
    const error = await page.$eval('#generate-error', (e) => ({ text: e.textContent, hidden: e.hidden, inPrompt: e.closest('.prompt-card') !== null, box: e.getBoundingClientRect().toJSON() }));
    assert.equal(error.hidden, false);
    assert.match(error.text, /^The prompt is too long for this model/, 'the plain-words title of the engine\'s code');
    assert.equal(record.error.code, 'prompt-too-long');
    assert.match(error.text, new RegExp(`the prompt is ${chips} tokens, more than the context of ${context}$`), 'the engine counted the tokens the chips show');
    assert.ok(error.inPrompt && error.box.top - generateBox.bottom < 80, 'the error is right under Generate');
    assert.ok(error.box.bottom <= 1000 && (await page.evaluate(() => window.scrollY)) === 0, 'the error is on screen without scrolling');
    await screenshot(page, '11-prompt-too-long');

    // A prompt that fits: the warning goes, and tokens/s counts generation only, from the first new token
    // on (as the CLI does), so the time spent reading a long prompt does not lower it. The test notes when
    // the output view starts, shows the first new token and ends (in the same calls where the view reads
    // its clock) and checks both rates against those moments: no bound on the speed itself.
    await page.evaluate(() => {
      const output = document.querySelector('#output');
      const meta = document.querySelector('#output-meta');
      window.__outputTimes = {};
      const { replaceChildren, before } = Element.prototype;
      Element.prototype.replaceChildren = function (...nodes) {
        if (this === output) window.__outputTimes.started = performance.now();
        return replaceChildren.apply(this, nodes);
      };
      Element.prototype.before = function (...nodes) {
        if (this.parentElement === output && nodes.some((n) => n.dataset?.index === '0')) window.__outputTimes.first = performance.now();
        return before.apply(this, nodes);
      };
      const text = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
      Object.defineProperty(meta, 'textContent', {
        get: () => text.get.call(meta),
        set: (value) => {
          if (value && value !== 'generating…') window.__outputTimes.ended = performance.now(); // the reason it ended
          text.set.call(meta, value);
        },
      });
    });
    const result = await generate(page, 'the cat sat on the mat. '.repeat(45), { temperature: 0, maxTokens: 40 });
    assert.equal(await page.isVisible('#generate-error'), false);
    assert.doesNotMatch(await page.textContent('#token-summary'), /context/);
    assert.equal(result.ids.length, 40);
    const number = async (id) => Number(await page.textContent(`#${id} strong`));
    const [count, rate, promptRate] = [await number('stat-count'), await number('stat-rate'), await number('stat-prompt-rate')];
    assert.equal(count, 40);
    const times = await page.evaluate(() => window.__outputTimes);
    const generationRate = (count - 1) / ((times.ended - times.first) / 1000);
    const promptReadRate = result.promptIds.length / ((times.first - times.started) / 1000);
    // Shown to 0.1 (or 1 past 100/s); the view and the test read the clock a few statements apart.
    const near = (shown, expected) => Math.abs(shown - expected) <= 0.05 * expected + 0.5;
    assert.ok(near(rate, generationRate), `${rate} tokens/s is the ${count - 1} tokens after the first over the time since it (${generationRate.toFixed(1)}/s)`);
    assert.ok(near(promptRate, promptReadRate), `${promptRate} tokens/s prompt is the ${result.promptIds.length}-token prompt over the time to the first token (${promptReadRate.toFixed(1)}/s)`);
    assert.match(await page.getAttribute('#stat-prompt-rate', 'title'), new RegExp(`the prompt's ${result.promptIds.length} tokens per second`));
    assert.deepEqual(errors, []);
  });
});

test('12. on a phone the prompt comes first, the heads overview has two columns, and a tap explains a cell', async (t) => {
  await withPage(
    t,
    async ({ page, errors }) => {
      const cards = ['.prompt-card', '.output-card', '.next-card', '#model-card', '#sampling-card', '.attention-card'];
      const tops = [];
      for (const card of cards) tops.push(await page.$eval(card, (e) => e.getBoundingClientRect().top + window.scrollY));
      assert.deepEqual([...tops].sort((a, b) => a - b), tops, `${cards.join(', ')} from top to bottom (${tops})`);
      assert.ok((await page.$eval('#generate', (b) => b.getBoundingClientRect().bottom)) <= 812, 'Generate is on the first screen');
      const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 200 });
      await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 375, 'nothing is wider than the screen');
      assert.equal(await page.$eval('.head-grid', (g) => getComputedStyle(g).gridTemplateColumns.split(' ').length), 2);

      // A tap (no hover on a touch screen) shows the cell's numbers and pins its row; the row's token is
      // scrolled into view in the "Where … looks" list, which is longer than its box.
      const size = result.promptIds.length + result.ids.length - 1;
      const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
      const geometry = await heatmapGeometry(page, size);
      assert.ok(await page.$eval('.focus-chips', (l) => l.scrollHeight > 2 * l.clientHeight), 'the token list scrolls');
      for (const [q, k] of [
        [3, 1],
        [size - 3, 2],
      ]) {
        await page.tap('canvas.heatmap-overlay', { position: { x: geometry.left + (k + 0.5) * geometry.cell, y: geometry.top + (q + 0.5) * geometry.cell } });
        await page.waitForSelector('.tooltip:not([hidden])');
        const [query, key, shown] = await page.$$eval('.tooltip dd', (dds) => dds.map((d) => d.textContent));
        const [tq, tk] = [query, key].map((text) => Number(/^token (\d+) /.exec(text)[1]));
        // Cells are about a pixel here: the tap may land one cell off, but the numbers must be that cell's.
        assert.ok(Math.abs(tq - q) <= 1 && Math.abs(tk - k) <= 1, `tapped near (${q}, ${k}), the tooltip shows (${tq}, ${tk})`);
        assert.equal(shown, weightShown(trace.matrix[tq * size + tk]));
        assert.match(await page.textContent('.panel-title:has(.focus-token)'), new RegExp(`\\(token ${tq}\\) looks.*pinned`));
        const chip = await page.$eval('.focus-chip.query', (c) => {
          const list = c.parentElement.getBoundingClientRect();
          const own = c.getBoundingClientRect();
          return { index: Number(c.dataset.index), inView: own.top >= list.top - 1 && own.bottom <= list.bottom + 1 };
        });
        assert.deepEqual(chip, { index: tq, inView: true }, `token ${tq}'s chip is scrolled into view`);
      }
      await screenshot(page, '12-phone');
      assert.deepEqual(errors, []);
    },
    { viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  );
});

test('13. the attention view follows a running generation', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    // A prompt of about 200 tokens and 100 new ones: the sequence outgrows the views' window of 256 while it
    // is generated. stories260K writes 100 tokens quicker than the view's refresh period (0.5 s, longer on a
    // busy machine: 9 times what a refresh cost). The worker computes a token only once the page has taken the
    // one before, so drawing each token 40 ms slower paces generation like a bigger model: at least 4 s.
    await page.fill('#prompt', 'the cat sat on the mat. '.repeat(20));
    await setControls(page, { temperature: 1, topK: 0, topP: 1, seed: 42, maxTokens: 100 });
    await page.evaluate(() => {
      new MutationObserver(() => {
        const until = performance.now() + 40;
        while (performance.now() < until);
      }).observe(document.querySelector('#output'), { childList: true });
    });
    // Record every heatmap caption drawn while the generation runs.
    await page.evaluate(() => {
      window.liveCaptions = [];
      new MutationObserver(() => {
        const caption = document.querySelector('.heatmap-caption');
        if (caption && window.__glassbox.last?.running) window.liveCaptions.push(caption.textContent);
      }).observe(document.querySelector('#attention'), { subtree: true, childList: true, characterData: true });
    });
    // The view refreshes only in sight, and the long prompt's text pushes it down the page.
    await page.$eval('#attention', (view) => view.scrollIntoView({ block: 'center' }));
    await page.click('#generate');
    await page.waitForFunction(() => window.__glassbox.generations === 1);
    const result = await page.evaluate(() => window.__glassbox.whenIdle());
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    const live = await page.evaluate(() => window.liveCaptions);
    assert.ok(live.length >= 2, `the heatmap was drawn again and again before the generation ended (${live.length} times)`);
    for (const caption of live) assert.match(caption, /updating while generating/);
    const final = await page.textContent('.heatmap-caption');
    assert.doesNotMatch(final, /updating/);
    // Past 256 tokens the views show a window of the newest 256: "tokens 45–300 of 301", say.
    const size = result.promptIds.length + result.ids.length - 1;
    assert.ok(size > 256, `the generation outgrew the views' window (${size} tokens)`);
    assert.match(final, new RegExp(`· tokens ${size - 256}–${size - 1} of ${size} ·`));
    assert.match(await page.textContent('.window-note'), new RegExp(`Showing the newest 256 of ${size} tokens`));
    const total = (caption) => Number((/· (\d+) tokens ·/.exec(caption) ?? /· tokens \d+–\d+ of (\d+) ·/.exec(caption))[1]);
    const liveSizes = live.map(total);
    assert.ok(
      liveSizes.every((n, i) => n > (liveSizes[i - 1] ?? 0) && n < size),
      `the live views (${liveSizes}) showed the sequence growing, before its end (${size})`,
    );
    assert.deepEqual(errors, []);
  });
});
