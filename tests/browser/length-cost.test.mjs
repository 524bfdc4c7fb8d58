// The anatomy's "Cost against length" plot (web/src/views/length-cost.ts): pressing Measure on stories260K
// measures exact, window and linear attention in the worker, with progress, and draws three log-log panels
// (prefill time, per-token time, memory), each with one measured curve and one formula curve per variant,
// and the crossover n* marked on the time panels. The numbers are the engine's (tests/wasm/length-cost.test.mjs
// checks them against the native CLI); this checks the page draws them. Screenshot: test-output/.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, outputDir } from './harness.mjs';

const suite = browserSuite();

test('c1. Measure draws one measured and one formula curve per variant in each panel, and marks the crossover', async (t) => {
  await suite.withPage(t, async ({ page, errors }) => {
    const button = page.locator('#anatomy .length-cost-measure');
    await button.waitFor();
    assert.equal(await button.isEnabled(), true, 'Measure is ready once the model is loaded');
    await button.click();
    await page.waitForSelector('.length-cost[data-state="measuring"]');
    await page.waitForFunction(() => /Measuring .* \(\d+ of \d+/.test(document.querySelector('.length-cost-progress')?.textContent ?? ''), null, { timeout: 10_000 });
    await page.waitForSelector('.length-cost[data-state="done"]', { timeout: 60_000 });

    const panels = await page.$$eval('.length-cost-panel', (figures) =>
      figures.map((f) => ({
        panel: f.dataset.panel,
        measured: [...f.querySelectorAll('path.measured')].map((p) => p.dataset.variant),
        formula: [...f.querySelectorAll('path.formula')].map((p) => p.dataset.variant),
        dots: f.querySelectorAll('circle').length,
        crossover: f.querySelector('svg').dataset.crossover ?? null,
      })),
    );
    assert.deepEqual(panels.map((p) => p.panel), ['prefill', 'token', 'memory']);
    const variants = ['exact', 'window:128', 'linear'];
    const lengths = 6; // 16 .. 512: stories260K's context
    for (const p of panels) {
      assert.deepEqual(p.measured, variants, `${p.panel}: one measured curve per variant`);
      assert.deepEqual(p.formula, variants, `${p.panel}: one formula curve per variant`);
      assert.equal(p.dots, variants.length * lengths, `${p.panel}: a dot per measured point`);
    }
    // stories260K: 4 n q passes 2·3·h·d (q = d = 64, h = 172) from n = 259, inside 16..512.
    assert.equal(panels[0].crossover, '259');
    assert.equal(panels[1].crossover, '259');
    assert.equal(panels[2].crossover, null, 'the memory panel has no FLOP crossover');
    assert.match(await page.textContent('.length-cost-note'), /n\* = 259/);
    assert.match(await page.textContent('.length-cost-progress'), /Measured 18 points/);
    await page.locator('#anatomy-card').screenshot({ path: path.join(outputDir, 'length-cost-anatomy.png') });
    assert.deepEqual(errors, []);
  });
});
