// Browser tests of the "see inside, part 2" views: the model view (every head), the head view (bertviz-like
// lines), head statistics and roles, live head ablation, positional encodings and the anatomy. Each checks
// what the page shows against what the worker sent (window.__glassbox.inside) or the engine computes under
// Node, and saves a screenshot of its card into test-output/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, dropAndSettle, fileOf, generate, openPage, outputDir, repo, skipOrFail, whenModelLoaded } from './harness.mjs';
import { createEngine, wasmDir } from '../wasm/helpers.mjs';

const PROMPT = 'Once upon a time, there was a little girl named Lily. She liked to play';

const suite = browserSuite();
const { withPage } = suite;


const idle = (page) => page.evaluate(() => window.__glassbox.inside.whenIdle());

async function shoot(page, selector, name) {
  await page.locator(selector).screenshot({ path: path.join(outputDir, `${name}.png`) });
}

/** Greedy text, then the part-2 views settle. */
async function generated(page, maxTokens = 60) {
  const result = await generate(page, PROMPT, { temperature: 0, maxTokens });
  await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
  await idle(page);
  return result;
}

test('h1. the model view shows every layer × head from one batch; a click opens the head in the attention view', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.equal(await page.$$eval('.ablation-badge', (b) => b.filter((x) => x.getBoundingClientRect().width > 0).length), 0, 'no ablation badge before any ablation');
    const result = await generated(page);
    const batch = await page.evaluate(() => {
      const b = window.__glassbox.inside.batch;
      return { layers: b.layers, heads: b.heads, size: b.size, total: b.total, begin: b.begin };
    });
    assert.equal(batch.total, result.promptIds.length + result.ids.length - 1);
    assert.equal(batch.size, Math.min(64, batch.total), 'a window of the newest positions');
    const tiles = await page.$$eval('.model-tile', (nodes) => nodes.map((n) => ({ layer: Number(n.dataset.layer), head: Number(n.dataset.head), label: n.getAttribute('aria-label') })));
    assert.equal(tiles.length, info.layers * info.heads);
    assert.deepEqual(tiles[2 * info.heads + 5], { layer: 2, head: 5, label: 'layer 2 head 5' });
    // Each thumbnail is the batch's matrix: its pixels are the window's size, masked above the diagonal.
    const thumb = await page.$eval('.model-tile[data-layer="3"][data-head="1"] canvas', (c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const at = (x, y) => Array.from(d.slice((y * c.width + x) * 4, (y * c.width + x) * 4 + 3));
      return { width: c.width, masked: at(c.width - 1, 0), diagonal: at(0, 0) };
    });
    assert.equal(thumb.width, batch.size);
    assert.deepEqual(thumb.masked, [238, 240, 242]);
    assert.notDeepEqual(thumb.diagonal, [238, 240, 242]);
    // A click opens the head large; so does Enter on a focused thumbnail.
    await page.click('.model-tile[data-layer="2"][data-head="5"]');
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    assert.match(await page.textContent('.heatmap-caption'), /Layer 2 · head 5/);
    assert.equal(await page.inputValue('#attention-layer'), '2');
    await page.focus('.model-tile[data-layer="4"][data-head="0"]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.head), '1', 'arrow keys move between thumbnails');
    await page.keyboard.press('Enter');
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    assert.match(await page.textContent('.heatmap-caption'), /Layer 4 · head 1/);
    // X (and Shift+click) marks a head for ablation.
    await page.focus('.model-tile[data-layer="1"][data-head="2"]');
    await page.keyboard.press('x');
    await page.click('.model-tile[data-layer="1"][data-head="3"]', { modifiers: ['Shift'] });
    assert.deepEqual(await page.$$eval('.model-tile.marked', (n) => n.map((x) => `${x.dataset.layer}.${x.dataset.head}`)), ['1.2', '1.3']);
    assert.deepEqual(await page.$$eval('.ablation-row', (n) => n.map((x) => `${x.dataset.layer}.${x.dataset.head}`)), ['1.2', '1.3']);
    assert.match(await page.getAttribute('.model-tile[data-layer="1"][data-head="2"]', 'aria-label'), /marked for ablation/);
    await shoot(page, '#model-view-card', 'h1-model-view');
    assert.deepEqual(errors, []);
  });
});

test('h2. the head view draws one line per attended key and head; toggling a head removes its lines', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await generated(page, 40);
    await page.selectOption('#head-view-layer', '1');
    const batch = await page.evaluate(() => {
      const b = window.__glassbox.inside.batch;
      return { heads: b.heads, size: b.size, matrix: Array.from(b.matrix) };
    });
    const n = batch.size;
    const q = n - 1; // the newest token is selected first
    const expected = (head) => {
      const row = (1 * batch.heads + head) * n * n + q * n;
      return batch.matrix.slice(row, row + q + 1).filter((w) => w >= 0.01).length;
    };
    const count = (head) => page.$$eval(`.head-view-lines line[data-head="${head}"]`, (l) => l.length);
    for (let h = 0; h < batch.heads; h++) assert.equal(await count(h), expected(h), `head ${h}'s lines`);
    const opacity = await page.$eval('.head-view-lines line[data-head="0"]', (l) => ({ key: Number(l.dataset.key), opacity: Number(l.getAttribute('stroke-opacity')) }));
    assert.ok(Math.abs(opacity.opacity - batch.matrix[(batch.heads + 0) * n * n + q * n + opacity.key]) < 1e-3, 'opacity is the weight');
    await page.click('.head-toggle[data-head="3"]');
    assert.equal(await count(3), 0, 'head 3 switched off');
    assert.equal(await page.getAttribute('.head-toggle[data-head="3"]', 'aria-pressed'), 'false');
    assert.equal(await count(2), expected(2), 'the other heads stay');
    await page.keyboard.press('Enter'); // the focused toggle, by keyboard
    assert.equal(await count(3), expected(3));
    // Another query, chosen with the keyboard.
    await page.focus('.head-view-token.selected');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.$eval('.head-view-token.selected', (b) => Number(b.dataset.index)), q - 2);
    const keys = await page.$$eval('.head-view-lines line', (l) => Math.max(...l.map((x) => Number(x.dataset.key))));
    assert.ok(keys <= q - 2, 'lines go only to keys the query can see');
    await page.click('.head-toggles .button:has-text("None")');
    assert.equal(await page.$$eval('.head-view-lines line', (l) => l.length), 0);
    await page.click('.head-toggles .button:has-text("All")');
    await shoot(page, '#head-view-card', 'h2-head-view');
    assert.deepEqual(errors, []);
  });
});

test('h3. Measure heads fills the table with the engine\'s numbers; the role counts equal the summary', async (t) => {
  const engineFile = path.join(wasmDir, 'glassbox-engine.mjs');
  if (!fs.existsSync(engineFile)) return skipOrFail(t, `${engineFile} is absent: build the WASM engine`);
  await withPage(t, async ({ page, errors }) => {
    const info = await page.evaluate(() => window.__glassbox.info);
    const result = await generated(page, 120);
    // Progress shows while it runs.
    await page.evaluate(() => {
      window.progressSeen = [];
      new MutationObserver(() => window.progressSeen.push(document.querySelector('.measure-status').textContent)).observe(document.querySelector('.measure-status'), { childList: true, characterData: true, subtree: true });
    });
    await page.click('#measure-heads');
    await page.waitForFunction(() => window.__glassbox.inside.measurement !== null);
    await idle(page);
    assert.ok((await page.evaluate(() => window.progressSeen)).some((s) => /Measuring… \d+ of \d+/.test(s)), 'progress was shown');
    const measurement = await page.evaluate(() => window.__glassbox.inside.measurement);
    assert.equal(measurement.tokens, result.promptIds.length + result.ids.length - 1);
    // The worker's numbers are the engine's: the same call under Node on the same tokens.
    const node = await createEngine();
    const { MODEL_SLOT, TOKENIZER_SLOT } = await import('../../wasm/engine.js');
    node.uploadBytes(MODEL_SLOT, fs.readFileSync(path.join(repo, 'models', 'stories260K.bin')), 'stories260K.bin');
    node.uploadBytes(TOKENIZER_SLOT, fs.readFileSync(path.join(repo, 'models', 'tok512.bin')), 'tok512.bin');
    node.load('stories260K.bin', 'tok512.bin');
    const expected = node.measureHeads([...result.promptIds, ...result.ids].slice(0, measurement.tokens));
    node.dispose();
    assert.deepEqual(measurement.heads, expected.heads);
    assert.deepEqual(measurement.roles, expected.roles);
    // The table: one row per head, roles as measured, and the chips count them.
    const rows = await page.$$eval('.head-table tbody tr', (trs) => trs.map((tr) => ({ layer: Number(tr.dataset.layer), head: Number(tr.dataset.head), role: tr.querySelector('[data-column="role"]').textContent, rank: Number(tr.querySelector('[data-column="rank"]').textContent) })));
    assert.equal(rows.length, info.layers * info.heads);
    for (const row of rows) {
      const h = measurement.heads.find((x) => x.layer === row.layer && x.head === row.head);
      assert.deepEqual([row.role, row.rank], [h.role, h.effectiveRank], `layer ${row.layer} head ${row.head}`);
    }
    const chips = Object.fromEntries(await page.$$eval('.role-chip', (c) => c.map((x) => [x.dataset.role, Number(x.dataset.count)])));
    const tableCounts = {};
    for (const role of Object.keys(chips)) tableCounts[role] = rows.filter((r) => r.role === role).length;
    assert.deepEqual(chips, tableCounts, 'the summary counts the table\'s roles');
    assert.deepEqual(chips, measurement.roles);
    // The model view's thumbnails carry the roles in their accessible names.
    const h = measurement.heads[7];
    assert.equal(await page.getAttribute(`.model-tile[data-layer="${h.layer}"][data-head="${h.head}"]`, 'aria-label'), `layer ${h.layer} head ${h.head}, role ${h.role}`);
    // Sorting by a column (a button in its header).
    await page.click('.head-table th button:has-text("Sink")');
    await page.click('.head-table th button:has-text("Sink")');
    const sinks = await page.$$eval('.head-table tbody tr', (trs) => trs.map((tr) => ({ layer: Number(tr.dataset.layer), head: Number(tr.dataset.head) })));
    const sorted = [...measurement.heads].sort((a, b) => b.sink - a.sink || a.layer - b.layer || a.head - b.head).map((x) => ({ layer: x.layer, head: x.head }));
    assert.deepEqual(sinks, sorted, 'sorted by sink, largest first');
    assert.equal(await page.getAttribute('.head-table th[aria-sort="descending"] button', 'title') !== null, true);
    await page.click('.head-help summary');
    await shoot(page, '#head-table-card', 'h3-head-table');
    assert.deepEqual(errors, []);
  });
});

test('h4. ablating layer 0 moves the KL from 0 to > 0, the views redraw from the ablated run, and Reset gives the original generation back', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const original = await generated(page, 50);
    const attentionBefore = await page.evaluate(() => window.__glassbox.attention(1, 0));
    // A head marked at scale 1 changes nothing: KL exactly 0.
    await page.click('.model-tile[data-layer="0"][data-head="0"]', { modifiers: ['Shift'] });
    await page.$eval('.ablation-row input[type="range"]', (s) => {
      s.value = '1';
      s.dispatchEvent(new Event('input'));
      s.dispatchEvent(new Event('change'));
    });
    await page.click('#ablation-apply');
    await page.waitForFunction(() => window.__glassbox.inside.ablation !== null);
    await idle(page);
    assert.equal(await page.evaluate(() => window.__glassbox.inside.ablation.klBits), 0);
    assert.equal(await page.getAttribute('.ablation-numbers', 'data-kl'), '0');
    // Every head of layer 0 off.
    await page.selectOption('#ablation-layer', '0');
    await page.click('#ablation-mark-layer');
    assert.equal(await page.$$eval('.ablation-row', (r) => r.length), 8);
    await page.click('#ablation-apply');
    await page.waitForFunction(() => window.__glassbox.inside.ablation?.klBits > 0);
    await idle(page);
    const change = await page.evaluate(() => window.__glassbox.inside.ablation);
    assert.ok(change.klBits > 0);
    assert.equal(change.position, original.promptIds.length + original.ids.length - 2, 'at the last position read');
    assert.equal(await page.textContent('.ablation-numbers dd[data-key="kl"]'), `${change.klBits.toPrecision(3)} bits`);
    assert.match(await page.textContent('.ablation-numbers dd[data-key="top-before"]'), new RegExp(`${(change.pTopBefore * 100).toFixed(1)}% → ${(change.qTopBefore * 100).toFixed(1)}%`));
    // The badge, beside the attention view's controls and on the model view.
    const badges = await page.$$eval('.ablation-badge', (b) => b.filter((x) => x.getBoundingClientRect().width > 0).map((x) => x.textContent));
    assert.ok(badges.length >= 3 && badges.every((text) => text === 'Ablation on: 8 heads scaled'), JSON.stringify(badges));
    // Later layers' attention comes from the ablated run.
    const attentionAblated = await page.evaluate(() => window.__glassbox.attention(1, 0));
    assert.notDeepEqual(attentionAblated.matrix, attentionBefore.matrix, 'layer 1 attends differently with layer 0 off');
    assert.equal(await page.evaluate(() => window.__glassbox.inside.batch.scaled), true);
    assert.match(await page.textContent('.model-caption'), /ablated run/);
    // KL at every position: one bar per position read, the measured step outlined, a click selects a step.
    assert.equal(change.klBitsByPosition.length, change.position + 1);
    assert.equal(await page.locator('#ablation-card .kl-bar').count(), change.position + 1);
    assert.equal(await page.getAttribute('#ablation-card .kl-bar-step', 'data-position'), String(change.position));
    assert.match(await page.textContent('#ablation-card [data-key="kl-summary"]'), new RegExp(`Positions 0–${change.position}: mean KL`));
    await page.locator('#ablation-card .kl-bar').nth(5).click();
    await page.waitForFunction(() => window.__glassbox.seeInside.position === 5);
    await shoot(page, '#ablation-card', 'h4-ablation');
    await shoot(page, '.attention-card', 'h4-attention-ablated');
    // Mean ablation: head 0.3 replaced by its mean over the text (the others of layer 0 unmarked).
    await page.click('#ablation-reset');
    await page.waitForFunction(() => !window.__glassbox.inside.ablationActive);
    await idle(page);
    await page.click('#ablation-clear');
    await page.click('.model-tile[data-layer="0"][data-head="3"]', { modifiers: ['Shift'] });
    await page.check('.ablation-row[data-layer="0"][data-head="3"] .ablation-mean-box');
    assert.equal(await page.getAttribute('.ablation-row[data-layer="0"][data-head="3"]', 'data-mean'), 'true');
    assert.equal(await page.isDisabled('.ablation-row[data-layer="0"][data-head="3"] input[type="range"]'), true);
    await page.click('#ablation-apply');
    await page.waitForFunction(() => window.__glassbox.inside.ablation?.meanHeads?.length === 1);
    await idle(page);
    const mean = await page.evaluate(() => window.__glassbox.inside.ablation);
    assert.deepEqual(Array.from(mean.meanHeads), [3]);
    assert.ok(mean.klBits > 0 && mean.klBits !== change.klBits);
    assert.equal(mean.position, 5, 'measured at the step selected');
    const meanBadges = await page.$$eval('.ablation-badge', (b) => b.filter((x) => x.getBoundingClientRect().width > 0).map((x) => x.textContent));
    assert.ok(meanBadges.every((text) => text === 'Ablation on: 1 replaced by its mean'), JSON.stringify(meanBadges));
    await shoot(page, '#ablation-card', 'h4-mean-ablation');
    // Reset: the model as trained; the same greedy generation as before.
    await page.click('#ablation-reset');
    await page.waitForFunction(() => !window.__glassbox.inside.ablationActive);
    await idle(page);
    assert.equal(await page.$$eval('.ablation-badge', (b) => b.filter((x) => x.getBoundingClientRect().width > 0).length), 0, 'no badge shows');
    assert.deepEqual((await page.evaluate(() => window.__glassbox.attention(1, 0))).matrix, attentionBefore.matrix);
    const again = await generated(page, 50);
    assert.deepEqual(again.ids, original.ids, 'after Reset, generation gives the same tokens');
    assert.deepEqual(errors, []);
  });
});

test('h5b. ALiBi: a BLOOM model\'s positions card shows each head\'s slope (the extension past a power of two) and a bias by distance only', async (t) => {
  const bloom = path.join(process.env.GLASSBOX_FIXTURES_DIR ?? path.join(repo, 'build', 'fixtures'), 'bloom-tiny.gguf');
  if (!fs.existsSync(bloom)) return skipOrFail(t, `${bloom} is absent: run the native tests (they write the fixtures)`);
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await dropAndSettle(page, [fileOf('bloom-tiny.gguf', fs.readFileSync(bloom))]), 'loaded');
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.equal(info.heads, 6);
    await page.waitForSelector('.alibi-slope');
    assert.match(await page.textContent('.positions-summary'), /ALiBi/);
    // 6 heads: the 4 of the power of two below, 2^(-8(h+1)/4), then the odd slopes of 8, 2^(-4(2j+1)/4).
    const expected = [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3];
    const shown = await page.$$eval('.alibi-slope', (rows) => rows.map((r) => Number(r.dataset.slope)));
    assert.equal(shown.length, 6);
    shown.forEach((m, h) => assert.ok(Math.abs(m - expected[h]) <= 1e-6 * expected[h], `head ${h}: ${m} against ${expected[h]}`));
    // Every diagonal of the damping matrix is one colour: the bias knows distances only.
    await page.selectOption('#alibi-head', '4');
    const rows = await page.$$eval('.alibi-matrix tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.style.background)));
    for (let d = 0; d < rows.length; d++) assert.equal(new Set(rows.slice(d).map((row, i) => row[i])).size, 1, `diagonal ${d}`);
    assert.notEqual(rows[5][5], rows[5][0], 'a key further back is damped');
    await (await page.$('#positions-card')).screenshot({ path: path.join(repo, 'test-output', 'h5b-alibi.png') });
    assert.deepEqual(errors, []);
  });
});

test('h5. positional encodings: the sinusoidal code, and RoPE\'s q·k equal along every diagonal with the model\'s angles', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const info = await page.evaluate(() => window.__glassbox.info);
    await page.waitForSelector('.sinusoidal-canvas');
    await page.waitForSelector('.rope-canvas');
    assert.match(await page.textContent('.positions-summary'), /RoPE/);
    const check = async () => {
      const picture = await page.evaluate(() => {
        const p = window.__glassbox.inside.rope();
        return { n: p.positions, dots: Array.from(p.dots), angles: Array.from(p.angles), source: p.source };
      });
      let spread = 0;
      let largest = 0;
      for (let d = -(picture.n - 1); d < picture.n; d++) {
        const values = [];
        for (let m = Math.max(0, d); m < Math.min(picture.n, picture.n + d); m++) values.push(picture.dots[m * picture.n + (m - d)]);
        spread = Math.max(spread, Math.max(...values) - Math.min(...values));
        largest = Math.max(largest, ...values.map(Math.abs));
      }
      assert.ok(spread <= 1e-4 * Math.max(1, largest), `every diagonal holds one value (spread ${spread})`);
      const shown = Number(await page.getAttribute('.rope-check', 'data-spread'));
      assert.ok(shown <= spread + 1e-12, `the page reports the spread of its lower diagonals (${shown})`);
      return picture;
    };
    const random = await check();
    assert.equal(random.source.kind, 'random');
    assert.equal(random.angles.length, info.headDim / 2);
    assert.equal(await page.$$eval('.rope-angles tbody tr', (r) => r.length), info.headDim / 2);
    // A real query, after some text: layer 3, head 6.
    await generated(page, 20);
    await page.selectOption('#rope-source', 'query');
    await page.selectOption('#rope-layer', '3');
    await page.selectOption('#rope-head', '6');
    await page.fill('#rope-angle-position', '5');
    await page.dispatchEvent('#rope-angle-position', 'change');
    await idle(page);
    const real = await check();
    assert.deepEqual({ kind: real.source.kind, layer: real.source.layer, head: real.source.head }, { kind: 'query', layer: 3, head: 6 });
    // Angle of pair i at position 5: 5 · 10000^(-2i/8).
    real.angles.forEach((a, i) => assert.ok(Math.abs(a - 5 * 10000 ** ((-2 * i) / 8)) < 1e-5, `pair ${i}: ${a}`));
    assert.match(await page.textContent('.positions-angles h3'), /position 5/);
    const sinusoidal = await page.$eval('.sinusoidal-canvas', (c) => ({ w: c.width, h: c.height }));
    assert.deepEqual(sinusoidal, { w: info.dim, h: 128 });
    await shoot(page, '#positions-card', 'h5-positions');
    assert.deepEqual(errors, []);
  });
});

test('h6. the anatomy adds up to the model\'s parameter count; its FLOPs follow the sequence length', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const info = await page.evaluate(() => window.__glassbox.info);
    await page.waitForSelector('.anatomy-total');
    const total = Number(await page.getAttribute('.anatomy-total', 'data-parameters'));
    assert.equal(total, info.parameters);
    const parts = await page.$$eval('.anatomy-table tbody tr[data-component]', (r) => r.map((x) => Number(x.dataset.parameters)));
    assert.equal(parts.reduce((a, b) => a + b, 0), info.parameters, 'the components add up');
    assert.match(await page.textContent('.anatomy-total'), new RegExp(info.parameters.toLocaleString('en-US')));
    const short = await generated(page, 10);
    const shortN = Number(await page.getAttribute('.flops-bars', 'data-sequence-length'));
    assert.equal(shortN, short.promptIds.length + short.ids.length - 1);
    const scores = async () => Number(await page.getAttribute('.flops-row[data-part="scores"]', 'data-flops'));
    const ffn = async () => Number(await page.getAttribute('.flops-row[data-part="ffn"]', 'data-flops'));
    const [s1, f1] = [await scores(), await ffn()];
    const long = await generated(page, 40); // any longer sequence shows the proportion
    const longN = Number(await page.getAttribute('.flops-bars', 'data-sequence-length'));
    assert.equal(longN, long.promptIds.length + long.ids.length - 1);
    const [s2, f2] = [await scores(), await ffn()];
    assert.ok(s2 > s1, `the attention scores grow with n (${s1} → ${s2})`);
    assert.equal(f2, f1, 'the feed-forward does not');
    assert.equal(s2 / s1, longN / shortN, 'in proportion to n');
    await shoot(page, '#anatomy-card', 'h6-anatomy');
    assert.deepEqual(errors, []);
  });
});

test('h7. on a phone the part-2 cards come after the attention card and nothing is wider than the screen', async (t) => {
  await withPage(
    t,
    async ({ page, errors }) => {
      const top = (selector) => page.$eval(selector, (e) => e.getBoundingClientRect().top + window.scrollY);
      assert.ok((await top('#generate')) < 812, 'Generate stays on the first screen');
      await generated(page, 60);
      await page.click('#measure-heads');
      await page.waitForFunction(() => window.__glassbox.inside.measurement !== null);
      await idle(page);
      const attention = await top('.attention-card');
      for (const card of ['#model-view-card', '#head-view-card', '#head-table-card', '#ablation-card', '#positions-card', '#anatomy-card']) {
        assert.ok((await top(card)) > attention, `${card} comes after the attention card`);
      }
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 375, 'nothing is wider than the screen');
      await shoot(page, '#model-view-card', 'h7-phone-model-view');
      await shoot(page, '#head-view-card', 'h7-phone-head-view');
      assert.deepEqual(errors, []);
    },
    { viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  );
});
