// The training lab (web/src/views/train-lab.ts, worker/train.ts, wasm/bind_train.cpp): a short run of the
// copy task on a tiny 2-layer config in the worker, whose loss must fall; Pause stops it between steps; "Use
// this model" makes the trained weights the page's model (a generation and its attention then come from it);
// Resume finishes the run; Download hands over a GGUF file; a learning rate that makes the loss NaN stops the
// run with a message naming the step. The numbers are the core's trainer
// (tests/train_trainer_test.cpp); this checks the page drives it. Screenshot: test-output/train-lab.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, generate, loadCounts, loadEnded, outputDir } from './harness.mjs';

const suite = browserSuite();

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const record = (page) => page.evaluate(() => window.__glassbox.train.record);

test('t1. a short copy-task run: the loss falls, Pause holds, the paused model runs in the views, Download is a GGUF', async (t) => {
  await suite.withPage(
    t,
    async ({ page, errors }) => {
      const lab = page.locator('#train-lab');
      await lab.locator('.train-start:not([disabled])').waitFor();
      await lab.locator('select').nth(0).selectOption('tiny');
      await lab.locator('select').nth(1).selectOption('copy');
      const fields = { Steps: '40', Batch: '4', 'Learning rate': '0.01', Warmup: '2' };
      for (const [label, value] of Object.entries(fields)) await lab.getByRole('spinbutton', { name: label, exact: true }).fill(value);
      await lab.locator('.train-start').click();

      // Pause once a dozen steps are done: the run holds between steps.
      await page.waitForFunction(() => (window.__glassbox.train.record?.losses.length ?? 0) >= 12, null, { timeout: 30_000 });
      await lab.locator('.train-pause').click();
      await page.waitForSelector('.train-lab[data-state="paused"]', { timeout: 10_000 });
      const paused = (await record(page)).losses.length;
      await page.waitForTimeout(300);
      assert.equal((await record(page)).losses.length, paused, 'no step runs while paused');
      assert.equal(await lab.locator('.train-pause').textContent(), 'Resume');

      // Use the paused weights: they load as the page's model, and a generation and its attention come from them.
      const before = await loadCounts(page);
      await lab.locator('.train-use').click();
      assert.equal(await loadEnded(page, before), 'loaded');
      const info = await page.evaluate(() => ({ label: window.__glassbox.modelLabel, info: window.__glassbox.info }));
      assert.equal(info.label, `trained-step-${paused}.gguf`);
      assert.equal(info.info.layers, 2);
      assert.equal(info.info.heads, 2);
      const run = await generate(page, 'Lily', { maxTokens: 8, temperature: 0 });
      assert.ok(run.ids.length > 0, 'the trained model generates');
      const attention = await page.evaluate(() => window.__glassbox.attention(1, 0));
      // The trace holds every position the model read: the prompt and each generated token but the last.
      assert.equal(attention.total, run.promptIds.length + run.ids.length - 1, 'the attention view reads the trained model');

      // Resume to the end: the loss must have fallen well below where it started.
      await lab.locator('.train-pause').click();
      await page.waitForSelector('.train-lab[data-state="done"]', { timeout: 30_000 });
      const done = await record(page);
      assert.equal(done.losses.length, 40);
      const first = mean(done.losses.slice(0, 3));
      const last = mean(done.losses.slice(-3));
      assert.ok(last < first - 1.0, `the loss falls: from ${first.toFixed(3)} to ${last.toFixed(3)}`);
      assert.ok(done.heldOut.length >= 2 && done.heldOut.at(-1).loss < done.heldOut[0].loss, 'the held-out loss falls too');
      assert.ok(done.induction.length >= 2 && done.induction.every((m) => m.scores.length === 4), 'an induction score per head, measured every few steps');
      assert.ok(done.layerGradNorms.every((n) => n.length === 2), 'a gradient norm per layer');
      assert.equal(await page.locator('.train-chart[data-chart="loss"] path[data-series="train"]').count(), 1);
      assert.equal(await page.locator('.train-strip rect[fill]').count(), 4 * done.induction.length);

      // Download: a GGUF file (its magic) of the trained weights.
      const [download] = await Promise.all([page.waitForEvent('download'), lab.locator('.train-download').click()]);
      assert.equal(download.suggestedFilename(), 'trained-step-40.gguf');
      const file = path.join(outputDir, 'trained-step-40.gguf');
      await download.saveAs(file);
      assert.equal(fs.readFileSync(file).subarray(0, 4).toString('latin1'), 'GGUF');
      fs.rmSync(file);

      await page.locator('#train-card').screenshot({ path: path.join(outputDir, 'train-lab.png') });

      // A learning rate that makes the loss NaN: the run stops with a message naming the step, and the last good
      // weights can still be used.
      await lab.getByRole('spinbutton', { name: 'Learning rate', exact: true }).fill('1e30');
      await lab.locator('.train-start').click();
      await page.waitForSelector('.train-lab[data-state="error"]', { timeout: 10_000 });
      assert.match(await lab.locator('.notice.error').textContent(), /^Training stopped.*training stopped at step \d+: .*not a finite number/);
      assert.equal(await lab.locator('.train-use').isEnabled(), true, 'the last good weights stay usable');
      assert.deepEqual(errors, []);
    },
    { viewport: { width: 1280, height: 800 }, acceptDownloads: true },
  );
});
