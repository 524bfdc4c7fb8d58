// Browser tests of "see inside, part 1": one current step shared by every view (prompt strip, output,
// attention heatmap, next-token panel, sampling pipeline, attention step by step, logit lens), the Step
// button, the inspection JSON export, the heatmap PNG and the URL's hash. Every expected number is read
// from the engine (through the worker), never written here. Screenshots go to test-output/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, generate, heatmapGeometry, heatmapHighlight, openPage, repo, screenshot, whenModelLoaded } from './harness.mjs';

const PROMPT = 'Once upon a time, there was a little girl';
const SAMPLER = { temperature: 0.9, topK: 40, topP: 0.9, seed: 11, maxTokens: 16 };

const suite = browserSuite();
const { withPage } = suite;


/** Waits until the part-1 views have their answers from the worker (and a frame has drawn them). */
async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.evaluate(() => window.__glassbox.seeInside.whenIdle());
  await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
}

const state = (page) => page.evaluate(() => {
  const s = window.__glassbox.seeInside;
  return { position: s.position, sequence: s.sequence, promptLength: s.promptLength, steps: s.steps, detail: s.detail && { ...s.detail, probabilities: Array.from(s.detail.probabilities) }, lens: s.lens };
});

/** The heatmap row the overlay outlines, from its pixels. */
async function highlightedRow(page) {
  const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
  const geometry = await heatmapGeometry(page, trace.size);
  const { row } = await heatmapHighlight(page);
  assert.ok(row, 'a row is outlined');
  return trace.begin + Math.round((row.y0 + 1 - geometry.top) / geometry.cell);
}

/** Every view shows `position`. */
async function assertEveryViewAt(page, position) {
  await settle(page);
  const s = await state(page);
  assert.equal(s.position, position, 'the current step');
  const pressed = await page.$$eval('#tokens .chip[aria-pressed="true"]', (chips) => chips.map((c) => Number(c.dataset.index)));
  if (position < s.promptLength) assert.deepEqual(pressed, [position], 'the prompt strip marks it');
  else {
    assert.deepEqual(pressed, []);
    const token = await page.$eval('#output .tok[aria-pressed="true"]', (span) => Number(span.dataset.index));
    assert.equal(token, position - s.promptLength, 'the output marks it');
  }
  assert.equal(await highlightedRow(page), position, 'the heatmap outlines its row');
  assert.equal(s.detail.query, position, 'attention step by step works through its query');
  const lensColumn = await page.$$eval('#logit-lens .lens-cell.selected', (cells) => [...new Set(cells.map((c) => Number(c.dataset.position)))]);
  assert.deepEqual(lensColumn, [position], 'the logit lens outlines its column');
  assert.equal(Number(await page.inputValue('#step-slider')), position, 'the slider sits on it');
  const step = s.steps.find((x) => x.position === position);
  const nextHead = await page.textContent('#next-token');
  if (step) {
    const index = step.pipeline ? s.steps.indexOf(step) : -1;
    assert.match(nextHead, new RegExp(`^Step ${index + 1}(?!\\d)`), 'the next-token panel shows the step drawn at this position');
  }
}

test('1. a prompt token selected by click, by keyboard and by the slider moves every view', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const record = await generate(page, PROMPT, SAMPLER);
    assert.ok(record.ids.length > 2);
    await settle(page);
    await page.click('#tokens .chip[data-index="3"]');
    await assertEveryViewAt(page, 3);
    await page.focus('#tokens .chip[data-index="5"]');
    await page.keyboard.press('Enter');
    await assertEveryViewAt(page, 5);
    await page.focus('#step-slider');
    await page.keyboard.press('ArrowRight');
    await assertEveryViewAt(page, 6);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await assertEveryViewAt(page, 4);
    // A generated token: the step drawn from the logits at its position (the one after it).
    const { promptLength } = await state(page);
    await page.click('#output .tok[data-index="1"]');
    await assertEveryViewAt(page, promptLength + 1);
    await page.focus('#output .tok[data-index="0"]');
    await page.keyboard.press(' ');
    await assertEveryViewAt(page, promptLength);
    await screenshot(page, 'inspect-01-selected-step');
    await (await page.$('.prompt-card')).screenshot({ path: path.join(repo, 'test-output', 'inspect-01-prompt-card.png') });
    await (await page.$('.output-card')).screenshot({ path: path.join(repo, 'test-output', 'inspect-01-output-card.png') });
    assert.deepEqual(errors, []);
  });
});

test('2. the pipeline bars show the worker\'s numbers and the chosen token is inside the top-p set', async (t) => {
  await withPage(t, async ({ page }) => {
    await generate(page, PROMPT, SAMPLER);
    const s = await state(page);
    assert.equal(s.steps.length, (await page.evaluate(() => window.__glassbox.last.ids.length)));
    for (const step of s.steps) {
      await page.evaluate((p) => window.__glassbox.seeInside && document.querySelector('#step-slider') && (document.querySelector('#step-slider').value = String(p), document.querySelector('#step-slider').dispatchEvent(new Event('input'))), step.position);
      await settle(page);
      const shown = await page.$$eval('#pipeline tr[data-id]', (rows) =>
        rows.map((row) => ({ id: Number(row.dataset.id), chosen: row.classList.contains('chosen'), values: Object.fromEntries([...row.querySelectorAll('[data-column]')].map((c) => [c.dataset.column, Number(c.dataset.value)])) })),
      );
      assert.equal(shown.length, step.pipeline.tokens.length);
      shown.forEach((row, i) => {
        const sent = step.pipeline.tokens[i];
        assert.equal(row.id, sent.id);
        for (const key of ['pTemperature1', 'pTemperature', 'pTopK', 'pTopP']) assert.equal(row.values[key], sent[key], `${key} of ${sent.id}`);
        // Raw logits, then divided by T: the softmax of the second column is the "at T" one.
        assert.equal(row.values.logit, sent.logit);
        assert.equal(row.values.logitOverT, sent.logit / SAMPLER.temperature);
      });
      const chosen = step.pipeline.tokens.find((x) => x.id === step.chosen);
      assert.ok(chosen, `step at ${step.position}: the chosen token is among the top shown`);
      assert.ok(chosen.keptByTopP && chosen.pTopP > 0, 'the chosen token survived top-p');
      assert.deepEqual(shown.filter((r) => r.chosen).map((r) => r.id), [step.chosen]);
      assert.ok(step.pipeline.topPKept <= step.pipeline.topKKept && step.pipeline.topKKept <= SAMPLER.topK);
    }
    await page.$eval('#pipeline', (el) => el.scrollIntoView());
    await (await page.$('.pipeline-card')).screenshot({ path: path.join(repo, 'test-output', 'inspect-02-pipeline.png') });
  });
});

test('3. attention step by step equals the heatmap\'s row for the same query and head', async (t) => {
  await withPage(t, async ({ page }) => {
    await generate(page, PROMPT, SAMPLER);
    await page.selectOption('#attention-layer', '2');
    await page.selectOption('#attention-head', '5');
    await settle(page);
    for (const query of [0, 4, 9]) {
      await page.click(`#tokens .chip[data-index="${query}"]`);
      await settle(page);
      const { detail } = await state(page);
      assert.deepEqual([detail.layer, detail.head, detail.query], [2, 5, query]);
      const trace = await page.evaluate(() => window.__glassbox.attention(2, 5));
      const row = trace.matrix.slice((query - trace.begin) * trace.size, (query - trace.begin + 1) * trace.size);
      for (let j = 0; j <= query; ++j) assert.equal(detail.probabilities[j], row[j - trace.begin], `key ${j}`);
      const shown = await page.$$eval('#attention-steps tr[data-key]', (rows) => rows.map((r) => [Number(r.dataset.key), Number(r.dataset.probability)]));
      assert.equal(shown.length, query + 1, 'every key is listed');
      for (const [key, p] of shown) assert.equal(p, row[key - trace.begin]);
      for (let i = 1; i < shown.length; i++) assert.ok(shown[i - 1][1] >= shown[i][1], 'heaviest first');
      // The heaviest key taken apart: q∘k's cells, one per dimension, multiply to the dot product shown.
      const neuron = await page.$eval('.neuron-view', (v) => ({ key: Number(v.dataset.key), cells: v.querySelectorAll('.neuron-cell').length, text: v.textContent }));
      assert.equal(neuron.key, shown[0][0]);
      assert.equal(neuron.cells, 3 * detail.headDim, 'q, k and q∘k: a cell per dimension each');
      const sum = detail.q.reduce((a, x, i) => a + x * detail.keyRows[neuron.key * detail.headDim + i], 0);
      assert.match(neuron.text, new RegExp(`Σ = ${sum.toFixed(4).replace('-', '\\-').replace('.', '\\.')} = q · k`));
    }
    // ↓ in the key list takes the next key apart, and the list keeps the focus.
    await page.focus('.steps-keys');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.$eval('.neuron-view', (v) => Number(v.dataset.key)), await page.$$eval('#attention-steps tr[data-key]', (rows) => Number(rows[1].dataset.key)));
    assert.equal(await page.evaluate(() => document.activeElement.className), 'steps-keys');
    await page.$eval('.steps-card', (el) => el.scrollIntoView());
    await (await page.$('.steps-card')).screenshot({ path: path.join(repo, 'test-output', 'inspect-03-attention-steps.png') });
  });
});

test('4. the logit lens\'s last row is the next-token panel\'s top token at each position', async (t) => {
  await withPage(t, async ({ page }) => {
    await generate(page, PROMPT, SAMPLER);
    await settle(page);
    const s = await state(page);
    const lens = s.lens;
    assert.ok(lens && lens.size > 0);
    const last = lens.layers - 1;
    let compared = 0;
    for (const step of s.steps) {
      const at = step.position - lens.begin;
      if (at < 0 || at >= lens.size) continue;
      const top = step.pipeline.tokens[0];
      assert.equal(lens.ids[last * lens.size + at], top.id, `position ${step.position}`);
      const shown = await page.$eval(`#logit-lens tr[data-layer="${last}"] td[data-position="${step.position}"]`, (td) => Number(td.dataset.id));
      assert.equal(shown, top.id);
      compared++;
    }
    assert.ok(compared > 3, `${compared} positions compared`);
    await page.$eval('.lens-card', (el) => el.scrollIntoView());
    await (await page.$('.lens-card')).screenshot({ path: path.join(repo, 'test-output', 'inspect-04-logit-lens.png') });
  });
});

test('5. Step adds exactly one token, continuing the run', async (t) => {
  await withPage(t, async ({ page }) => {
    const first = await generate(page, PROMPT, { ...SAMPLER, maxTokens: 3 });
    const before = await state(page);
    const generations = await page.evaluate(() => window.__glassbox.generations);
    await page.click('#step');
    await page.waitForFunction((n) => window.__glassbox.generations > n, generations);
    const record = await page.evaluate(() => window.__glassbox.whenIdle());
    // The same run, one token longer (issue 27: Step once moved the whole text into the prompt box).
    assert.equal(record.ids.length, 4, 'one token more');
    assert.deepEqual(record.ids.slice(0, 3), first.ids, 'the tokens before stay');
    assert.deepEqual(record.promptIds, first.promptIds, 'the prompt stays the prompt');
    assert.equal(record.prompt, PROMPT);
    assert.ok(record.text.startsWith(first.text), 'it continued the text shown');
    await settle(page);
    const after = await state(page);
    assert.deepEqual(after.sequence, [...record.promptIds, ...record.ids]);
    const newest = after.steps[after.steps.length - 1];
    assert.deepEqual([newest.position, newest.chosen], [after.sequence.length - 2, record.ids[3]]);
    assert.ok(before.steps.length >= 3 && after.steps.length === before.steps.length + 1, 'the earlier steps stay');
    assert.equal(await page.inputValue('#prompt'), PROMPT, 'the prompt box keeps the prompt');
  });
});

test('6. Export JSON gives the inspection document of the page\'s tokens; the heatmap exports as PNG', async (t) => {
  await withPage(t, async ({ page }) => {
    const record = await generate(page, PROMPT, SAMPLER);
    await settle(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    const json = fs.readFileSync(await download.path(), 'utf8');
    const doc = JSON.parse(json);
    assert.deepEqual(doc.tokens.map((x) => x.id), [...record.promptIds, ...record.ids], 'the document\'s tokens are the page\'s');
    assert.equal(doc.settings.seed, SAMPLER.seed);
    assert.equal(doc.settings.top_k, SAMPLER.topK);
    assert.equal(doc.text, record.text);
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
    const bytes = fs.readFileSync(await png.path());
    assert.deepEqual([...bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
  });
});

test('7. the URL\'s hash keeps the prompt, the sampler, the layer, the head and the position', async (t) => {
  await withPage(t, async ({ page }) => {
    await generate(page, PROMPT, SAMPLER);
    await page.selectOption('#attention-layer', '3');
    await page.selectOption('#attention-head', '6');
    await page.click('#tokens .chip[data-index="4"]');
    await settle(page);
    const url = page.url();
    assert.match(url, /#.*prompt=/);
    const again = await openPage(suite.env, { url });
    try {
      await whenModelLoaded(again.page);
      assert.equal(await again.page.inputValue('#prompt'), PROMPT);
      for (const [id, value] of [['#temperature', SAMPLER.temperature], ['#top-k', SAMPLER.topK], ['#top-p', SAMPLER.topP], ['#seed', SAMPLER.seed], ['#max-tokens', SAMPLER.maxTokens]])
        assert.equal(Number(await again.page.inputValue(id)), value, id);
      assert.equal(await again.page.inputValue('#attention-layer'), '3');
      assert.equal(await again.page.inputValue('#attention-head'), '6');
      await again.page.click('#generate');
      await again.page.waitForFunction(() => window.__glassbox.generations > 0);
      await again.page.evaluate(() => window.__glassbox.whenIdle());
      await settle(again.page);
      assert.equal((await state(again.page)).position, 4);
      assert.equal(again.page.url(), url, 'the same state writes the same hash');
      await screenshot(again.page, 'inspect-07-restored');
    } finally {
      await again.context.close();
    }
  });
});
