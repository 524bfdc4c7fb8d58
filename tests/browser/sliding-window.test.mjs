// Gemma 3's sliding-window layers on the page (issue 12): a gemma3 file (the NumPy reference's gemma3-tiny
// fixture: window 3, layer 0 slides, layer 1 is global) is dropped on the page; the attention heatmap of the
// sliding layer draws keys older than the window in the mask's colour, as it draws the future, and says why
// on hover; the global layer draws them as weights; the model panel names the window.
// Run: npm run build && node --test --test-concurrency=1 tests/browser/sliding-window.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, dropAndSettle, fileOf, generate, heatmapGeometry, repo, screenshot, skipOrFail } from './harness.mjs';

const suite = browserSuite();
const { withPage } = suite;
const fixture = path.join(process.env.GLASSBOX_FIXTURES_DIR ?? path.join(repo, 'build', 'fixtures'), 'gemma3-tiny.gguf');
const MASKED = [238, 240, 242];

async function settle(page) {
  await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/** The heatmap's colour at the centre of cell (q, k), CSS geometry from heatmapGeometry. */
function pixelAt(page, geometry, q, k) {
  return page.$eval(
    'canvas.heatmap',
    (canvas, { x, y }) => {
      const scale = canvas.width / canvas.getBoundingClientRect().width;
      return Array.from(canvas.getContext('2d').getImageData(Math.round(x * scale), Math.round(y * scale), 1, 1).data.slice(0, 3));
    },
    { x: geometry.left + (k + 0.5) * geometry.cell, y: geometry.top + (q + 0.5) * geometry.cell },
  );
}

test('gemma3: the sliding layer\'s heatmap masks keys older than its window; the global layer does not', async (t) => {
  if (!fs.existsSync(fixture)) return skipOrFail(t, `absent: ${fixture} (make it with tests/reference/make_fixtures.py)`);
  await withPage(t, async ({ page }) => {
    const loaded = await dropAndSettle(page, [fileOf('gemma3-tiny.gguf', fs.readFileSync(fixture))]);
    assert.equal(loaded, 'loaded', await page.textContent('#model-error').catch(() => ''));
    assert.match(await page.textContent('#model-info'), /1 of 2 layers see only the last 3 tokens \(sliding window\)/);
    await generate(page, 'ab', { temperature: 0, maxTokens: 10 });

    // The global layer first: its masked cells are the future alone, which fixes the cells' geometry.
    await page.selectOption('#attention-layer', '1');
    await settle(page);
    const global = await page.evaluate(() => window.__glassbox.attention(1, 0));
    const n = global.size;
    assert.ok(n >= 6, `the window is outgrown (${n} positions)`);
    const geometry = await heatmapGeometry(page, n);
    assert.notDeepEqual(await pixelAt(page, geometry, n - 1, 0), MASKED, 'the global layer\'s last row sees the first token');
    assert.deepEqual(await pixelAt(page, geometry, 0, 1), MASKED, 'the future is masked');

    await page.selectOption('#attention-layer', '0');
    await settle(page);
    const sliding = await page.evaluate(() => window.__glassbox.attention(0, 0));
    assert.deepEqual(Array.from(sliding.firstVisible), Array.from({ length: n }, (_, q) => Math.max(0, q - 2)));
    assert.deepEqual(await pixelAt(page, geometry, n - 1, 0), MASKED, 'older than the window: drawn as masked');
    assert.deepEqual(await pixelAt(page, geometry, n - 1, n - 4), MASKED, 'just outside the window');
    assert.notDeepEqual(await pixelAt(page, geometry, n - 1, n - 3), MASKED, 'the oldest key inside the window');
    const box = await page.$eval('canvas.heatmap', (c) => {
      c.scrollIntoView({ block: 'center' });
      return { x: c.getBoundingClientRect().x, y: c.getBoundingClientRect().y };
    });
    await page.mouse.move(box.x + geometry.left + 0.5 * geometry.cell, box.y + geometry.top + (n - 0.5) * geometry.cell);
    await page.waitForSelector('.tooltip:not([hidden])');
    assert.match(await page.textContent('.tooltip'), /older than this layer's sliding window/);
    await screenshot(page, 'gemma3-sliding-window');
  });
});
