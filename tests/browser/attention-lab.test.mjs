// The attention lab in Chromium: for the current step, one head's exact attention beside an approximation's,
// their difference, both next-token distributions with their KL, the KL at every position and the text each
// writes on. What the page shows is checked against the engine under Node (the same WebAssembly build), the
// step it reads against the one every view follows, and the sliders against what the worker was asked.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, generate, outputDir } from './harness.mjs';
import { storiesEngine } from '../wasm/helpers.mjs';

const PROMPT = 'Once upon a time, there was a little girl named Lily. She liked to play';

const suite = browserSuite();
const { withPage } = suite;

const labIdle = (page) => page.evaluate(() => window.__glassbox.lab.whenIdle());
const labResult = (page) =>
  page.evaluate(() => {
    const r = window.__glassbox.lab.result;
    return r && { query: r.query, n: r.n, kl: r.kl, klByPosition: Array.from(r.klByPosition), exact: Array.from(r.exact), variant: Array.from(r.variant), exactContinuation: Array.from(r.exactContinuation), variantContinuation: Array.from(r.variantContinuation), variantCannotContinue: r.variantCannotContinue, comparedFrom: r.comparedFrom };
  });

/** Scrolls the lab into sight (it reads only there) and waits for its first comparison. */
async function openLab(page) {
  await page.locator('#attention-lab-card').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.__glassbox.lab.result !== null);
  await labIdle(page);
}

test('l1. the lab reads the text up to the current step with both attentions, as the engine does', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await generate(page, PROMPT, { temperature: 0, maxTokens: 20 });
    await openLab(page);
    // The default: a window of 8 over layer 0 head 0, at the newest step every view follows.
    let r = await labResult(page);
    const seen = await page.evaluate(() => ({ position: window.__glassbox.seeInside.position, sequence: window.__glassbox.seeInside.sequence }));
    assert.equal(r.query.variant, 'window:8');
    assert.deepEqual(r.query.ids, seen.sequence.slice(0, seen.position + 1), 'the text up to the current step');
    assert.equal(r.n, seen.position + 1);

    // The same numbers as the engine under Node for the same request.
    const engine = await storiesEngine();
    const native = engine.attentionLab(r.query.ids, r.query.variant, r.query);
    assert.deepEqual(r.klByPosition, Array.from(native.klByPosition));
    assert.deepEqual(r.variantContinuation, Array.from(native.variantContinuation));
    assert.equal(r.kl, native.kl);

    // Three pictures of n × n cells; the KL strip has a bar per position, the step's marked.
    const widths = await page.$$eval('.lab-canvas', (c) => c.map((x) => x.width));
    assert.deepEqual(widths, [r.n, r.n, r.n]);
    assert.equal(await page.locator('.lab-body .kl-bar').count(), r.klByPosition.length);
    assert.equal(await page.locator('.lab-body .kl-bar-step').count(), 1);
    assert.match(await page.textContent('.lab-kl'), /KL\(exact ‖ window:8\) = [\d.e+-]+ bits at step \d+/);
    assert.equal(await page.locator('.lab-continuation').count(), 2);

    // A click on a bar of the strip selects that step everywhere; the lab reads the text up to it.
    await page.locator('.lab-body .kl-bar').nth(9).click();
    await labIdle(page);
    r = await labResult(page);
    assert.equal(await page.evaluate(() => window.__glassbox.seeInside.position), 9);
    assert.equal(r.n, 10);
    assert.deepEqual(r.query.ids, seen.sequence.slice(0, 10));

    // The window slider: the worker is asked for what it shows.
    await page.locator('#lab-window').fill('2');
    await labIdle(page);
    r = await labResult(page);
    assert.equal(r.query.variant, 'window:2');
    assert.equal(await page.textContent('output[for="lab-window"]'), '2');
    for (let q = 0; q < r.n; q++) for (let k = 0; k < q - 1; k++) assert.equal(r.variant[q * r.n + k], 0, `row ${q} sees only its 2 newest keys`);

    // Confined to the layer drawn: the spelling names it, and the other layers stay exact.
    await page.selectOption('#lab-layer', '3');
    await page.check('#lab-one-layer');
    await labIdle(page);
    r = await labResult(page);
    assert.equal(r.query.variant, 'window:2@3');
    assert.equal(r.query.layer, 3);
    await page.uncheck('#lab-one-layer');

    // Low rank cannot write one token at a time, and says so.
    await page.selectOption('#lab-kind', 'low-rank');
    await labIdle(page);
    r = await labResult(page);
    assert.match(r.query.variant, /^low-rank:\d+$/);
    assert.equal(r.variantContinuation.length, 0);
    assert.match(await page.locator('.lab-continuation').nth(1).textContent(), /needs the whole attention matrix/);
    await page.locator('#attention-lab-card').screenshot({ path: path.join(outputDir, 'lab-low-rank.png') });

    // Linear attention at the newest step again, for the picture.
    await page.selectOption('#lab-kind', 'linear');
    await page.evaluate(() => window.__glassbox.lab.whenIdle());
    assert.equal((await labResult(page)).query.variant, 'linear');
    await page.locator('#attention-lab-card').screenshot({ path: path.join(outputDir, 'lab-linear.png') });
    assert.deepEqual(errors, []);
  });
});

test('l2. on a phone the lab fits the screen, and a head outside the model cannot be asked for', async (t) => {
  await withPage(
    t,
    async ({ page, errors }) => {
      await generate(page, PROMPT, { temperature: 0, maxTokens: 12 });
      await page.selectOption('#lab-kind', 'performer');
      await page.locator('#lab-features').fill('5');
      await openLab(page);
      const r = await labResult(page);
      assert.equal(r.query.variant, 'performer:32');
      const overflow = await page.evaluate(() => document.querySelector('#attention-lab-card').scrollWidth - document.querySelector('#attention-lab-card').clientWidth);
      assert.ok(overflow <= 1, `the card does not scroll sideways (${overflow} px)`);
      const heads = await page.$$eval('#lab-head option', (o) => o.length);
      assert.equal(heads, await page.evaluate(() => window.__glassbox.info.heads));
      await page.locator('#attention-lab-card').screenshot({ path: path.join(outputDir, 'lab-phone.png') });
      assert.deepEqual(errors, []);
    },
    { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  );
});
