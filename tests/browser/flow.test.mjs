// The whole model in one picture: the flow diagram is drawn from the loaded model's own configuration (Pre-LN
// stories260K, a Post-LN and a sandwich model from the reference fixtures), follows the current step (the
// token read, the stream's length entering each layer, against the engine under Node), links each part to
// its view from the keyboard, and the residual strip's click selects a step everywhere. On a phone the diagram
// fits, and the neuron and attribution tables scroll sideways with their row labels in sight.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, dropAndSettle, fileOf, generate, outputDir, repo, skipOrFail } from './harness.mjs';
import { storiesEngine } from '../wasm/helpers.mjs';

const PROMPT = 'Once upon a time, there was a little girl named Lily.';
const fixtures = process.env.GLASSBOX_FIXTURES_DIR ?? path.join(repo, 'build', 'fixtures');

const suite = browserSuite();
const { withPage } = suite;

const parts = (page) => page.$$eval('#flow [data-part]', (nodes) => nodes.map((n) => n.dataset.part));
const flowIdle = (page) => page.evaluate(() => window.__glassbox.flow.whenIdle());

test('f1. the diagram draws stories260K as it is built and follows the current step', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.deepEqual(await parts(page), ['token', 'embedding', 'norm-attention', 'attention', 'norm-ffn', 'ffn', 'stream', 'final-norm', 'unembedding', 'softmax']);
    const attention = await page.textContent('#flow [data-part="attention"]');
    assert.match(attention, new RegExp(`${info.heads} heads × ${info.headDim}`));
    if (info.kvHeads !== info.heads) assert.match(attention, new RegExp(`${info.kvHeads} key/value heads, each shared by ${info.heads / info.kvHeads} \\(GQA\\)`));
    assert.match(await page.textContent('#flow [data-part="ffn"]'), new RegExp(`SwiGLU.*${info.dim} → ${info.hiddenDim} \\(gate × up\\) → ${info.dim}`));
    assert.match(await page.textContent('.flow-repeat'), new RegExp(`× ${info.layers} layers`));

    const result = await generate(page, PROMPT, { temperature: 0, maxTokens: 12 });
    await flowIdle(page);
    // The newest step: its bars are the stream's lengths the engine computes for the same tokens.
    const sequence = await page.evaluate(() => window.__glassbox.seeInside.sequence);
    const position = await page.evaluate(() => window.__glassbox.seeInside.position);
    const engine = await storiesEngine();
    engine.startTokens(sequence.slice(0, position + 1), { maxTokens: 1 });
    engine.step();
    const expected = engine.residualNorms(position, position + 1);
    const bars = await page.$$eval('#flow .flow-bar', (b) => b.map((x) => Number(x.dataset.value)));
    assert.equal(bars.length, info.layers + 1);
    bars.forEach((v, l) => assert.equal(v, expected[l], `layer ${l}`));
    assert.match(await page.textContent('#flow [data-part="token"]'), new RegExp(`at position ${position} \\(the current step\\)`));

    // The feed-forward's most active neurons at the step: the engine's, for the same tokens and layer.
    assert.equal(await page.$eval('#neuron-layer', (s) => s.selectedIndex), 0, 'the layer select shows layer 0, the one read');
    await page.selectOption('#neuron-layer', '2');
    await flowIdle(page);
    const shown = await page.$$eval('.neuron-table tr[data-neuron]', (rows) => rows.map((r) => Number(r.dataset.neuron)));
    const neurons = engine.topNeurons(sequence.slice(0, position + 1), 2, position, 8);
    assert.deepEqual(shown, neurons.top.map((t) => t.neuron));
    const reply = await page.evaluate(() => window.__glassbox.flow.neurons);
    assert.deepEqual(reply.top.map((t) => t.activation), neurons.top.map((t) => t.activation));

    // A click in the residual strip selects that position for every view, the diagram included.
    const box = await page.locator('.residual-canvas').boundingBox();
    const norms = await page.evaluate(() => window.__glassbox.flow.residualNorms);
    await page.locator('.residual-canvas').click({ position: { x: ((4.5 - norms.begin) / norms.size) * box.width, y: box.height / 2 } });
    await flowIdle(page);
    assert.equal(await page.evaluate(() => window.__glassbox.seeInside.position), 4);
    assert.match(await page.textContent('#flow [data-part="token"]'), /at position 4 \(the current step\)/);
    assert.ok(result.ids.length > 0);

    // From the keyboard: one tab stop, arrows move between parts, Enter opens the attention card.
    await page.focus('#flow .flow-svg');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    assert.equal(await page.$eval('#flow .flow-part.focused', (n) => n.dataset.part), 'attention');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => Math.abs(document.querySelector('#attention-heading').getBoundingClientRect().top) < 120);
    await page.locator('#flow-card').scrollIntoViewIfNeeded();
    await page.locator('#flow-card').screenshot({ path: path.join(outputDir, 'flow-stories.png') });
    assert.deepEqual(errors, []);
  });
});

test('f2. Post-LN and sandwich models are drawn as what they are', async (t) => {
  const post = path.join(fixtures, 'transformer-postln.gguf');
  const sandwich = path.join(fixtures, 'sandwich-sliding-softcap.gguf');
  if (!fs.existsSync(post) || !fs.existsSync(sandwich)) return skipOrFail(t, `the reference fixtures are absent in ${fixtures}: run the native tests`);
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await dropAndSettle(page, [fileOf('transformer-postln.gguf', fs.readFileSync(post))]), 'loaded');
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.equal(info.normPlacement, 'post');
    const postParts = await parts(page);
    assert.ok(postParts.includes('norm-attention-post') && postParts.includes('norm-ffn-post'), postParts.join(','));
    assert.ok(!postParts.includes('norm-attention'), 'no norm before the sub-blocks');
    assert.equal(postParts.includes('final-norm'), info.finalNorm);
    await page.locator('#flow-card').screenshot({ path: path.join(outputDir, 'flow-postln.png') });

    assert.equal(await dropAndSettle(page, [fileOf('sandwich-sliding-softcap.gguf', fs.readFileSync(sandwich))]), 'loaded');
    const sandwichParts = await parts(page);
    for (const p of ['norm-attention', 'attention', 'norm-attention-after', 'norm-ffn', 'ffn', 'norm-ffn-after']) assert.ok(sandwichParts.includes(p), `${p} in ${sandwichParts.join(',')}`);
    assert.match(await page.textContent('#flow [data-part="attention"]'), /layers windowed/);
    assert.deepEqual(errors, []);
  });
});

test('f3. on a phone the diagram fits the screen, and the tables scroll sideways with their row labels in sight', async (t) => {
  await withPage(
    t,
    async ({ page, errors }) => {
      await generate(page, PROMPT, { temperature: 0, maxTokens: 8 });
      await flowIdle(page);
      await page.evaluate(() => document.querySelector('#flow-card').scrollIntoView());
      const overflow = await page.$eval('#flow-card', (c) => c.scrollWidth - c.clientWidth);
      assert.ok(overflow <= 1, `the card does not scroll sideways (${overflow} px)`);
      // The diagram keeps a readable size: its box scrolls sideways instead of shrinking the text.
      const svgWidth = await page.$eval('#flow .flow-svg', (s) => s.getBoundingClientRect().width);
      assert.ok(svgWidth >= 540, `the diagram is ${svgWidth} px wide`);
      await page.screenshot({ path: path.join(outputDir, 'flow-phone.png') });
      // The neuron table and the attribution grid scroll sideways in their boxes with their row labels in sight.
      await page.locator('#attribution-card').scrollIntoViewIfNeeded();
      await page.evaluate(() => window.__glassbox.circuits.whenIdle());
      await page.locator('.attribution-grid td.attribution-cell').first().waitFor();
      const labels = await page.evaluate(() =>
        ['.neuron-table', '.attribution-grid'].map((table) => {
          const box = document.querySelector(table).closest('.attribution-scroll');
          box.scrollLeft = box.scrollWidth;
          const label = document.querySelector(`${table} tr:last-child > :first-child`).getBoundingClientRect();
          return { table, scrolled: box.scrollLeft, offset: label.left - box.getBoundingClientRect().left };
        }),
      );
      for (const l of labels) assert.ok(l.scrolled > 0 && Math.abs(l.offset) <= 1, `${l.table}: scrolled ${l.scrolled} px, its row label at ${l.offset} px from the box's edge`);
      assert.deepEqual(errors, []);
    },
    { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  );
});
