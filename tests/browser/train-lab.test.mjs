// The training lab (web/src/views/train-lab.ts, worker/train.ts, wasm/bind_train.cpp): a short run of the
// copy task on a tiny 2-layer config in the worker, whose loss must fall; Pause stops it between steps; "Use
// this model" makes the trained weights the page's model (a generation and its attention then come from it);
// Resume finishes the run; Download hands over a GGUF file; a learning rate that makes the loss NaN stops the
// run with a message naming the step; "Save in this browser" keeps the GGUF across a reload, the model panel's
// saved list loads it (and deletes it), and a full storage is said in plain words. The numbers are the core's trainer
// (tests/train_trainer_test.cpp); this checks the page drives it. Screenshots: test-output/train-lab.png,
// train-lab-saved.png (the lab with its Save button) and saved-models.png (the model panel's saved list).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, generate, loadCounts, loadEnded, outputDir, whenModelLoaded } from './harness.mjs';

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

test('t2. a trained model saved in this browser survives a reload, loads from the saved list as the page model, and is deleted', async (t) => {
  await suite.withPage(
    t,
    async ({ page, errors }) => {
      const lab = page.locator('#train-lab');
      await lab.locator('.train-start:not([disabled])').waitFor();
      assert.equal(await lab.locator('.train-save').isDisabled(), true, 'nothing to save before a run');
      await lab.locator('select').nth(0).selectOption('tiny');
      const fields = { Steps: '4', Batch: '2', Warmup: '1' };
      for (const [label, value] of Object.entries(fields)) await lab.getByRole('spinbutton', { name: label, exact: true }).fill(value);
      await lab.locator('.train-start').click();
      await page.waitForSelector('.train-lab[data-state="done"]', { timeout: 10_000 });

      // A storage that has no room: refused before any byte is written, in plain words, and nothing listed.
      await page.evaluate(() => {
        window.__realEstimate = navigator.storage.estimate.bind(navigator.storage);
        navigator.storage.estimate = async () => ({ quota: 1000, usage: 900 });
      });
      await lab.locator('.train-save').click();
      await lab.locator('.notice.error:not([hidden])').waitFor();
      assert.match(await lab.locator('.notice.error').textContent(), /^Not saved: this browser has no room for the model.*It needs [\d.]+ KiB; the browser allows this site 100 B more/);
      assert.equal(await page.locator('#saved-list li').count(), 0);
      await page.evaluate(() => (navigator.storage.estimate = window.__realEstimate));

      // Saved twice: the second keeps the first and takes a free name.
      await lab.locator('.train-save:not([disabled])').click();
      await page.locator('#saved-list li[data-name="trained-step-4.gguf"]').waitFor({ state: 'attached' }); // listed in the closed "Saved in this browser"
      assert.equal(await lab.locator('.notice.error').isHidden(), true, 'a good save clears the error');
      await lab.locator('.train-save:not([disabled])').click();
      await page.locator('#saved-list li[data-name="trained-step-4 (2).gguf"]').waitFor({ state: 'attached' });
      await page.locator('#train-card').screenshot({ path: path.join(outputDir, 'train-lab-saved.png') });

      // After a reload (stories260K loads again), the saved models are listed; Load makes one the page's model.
      await page.reload();
      await whenModelLoaded(page);
      assert.notEqual(await page.evaluate(() => window.__glassbox.modelLabel), 'trained-step-4.gguf', "the catalog's default model loads first");
      await page.locator('#saved-source summary').click();
      await page.locator('#saved-list li[data-name="trained-step-4.gguf"]').waitFor();
      assert.equal(await page.locator('#saved-list li').count(), 2);
      assert.equal(await page.locator('#saved-empty').evaluate((e) => e.hidden), true, 'no "None yet" beside a list');
      await page.locator('#model-card').screenshot({ path: path.join(outputDir, 'saved-models.png') });
      const before = await loadCounts(page);
      await page.getByRole('button', { name: 'Load trained-step-4.gguf, saved in this browser' }).click();
      assert.equal(await loadEnded(page, before), 'loaded');
      const info = await page.evaluate(() => ({ label: window.__glassbox.modelLabel, info: window.__glassbox.info }));
      assert.equal(info.label, 'trained-step-4.gguf');
      assert.deepEqual([info.info.layers, info.info.heads, info.info.dim], [2, 2, 32], 'the tiny preset the lab trained');
      assert.ok((await generate(page, 'Lily', { maxTokens: 4, temperature: 0 })).ids.length > 0, 'the saved model generates');

      // Delete: gone from the list, and after a reload too.
      for (const name of ['trained-step-4.gguf', 'trained-step-4 (2).gguf']) {
        await page.getByRole('button', { name: `Delete ${name} from this browser` }).click();
        await page.locator(`#saved-list li[data-name="${name}"]`).waitFor({ state: 'detached' });
      }
      await page.reload();
      await whenModelLoaded(page);
      assert.equal(await page.locator('#saved-list li').count(), 0);
      assert.equal(await page.locator('#saved-empty').evaluate((e) => e.hidden), false, '"None yet" once all are deleted');
      assert.deepEqual(errors, []);
    },
    { viewport: { width: 1280, height: 800 } },
  );
});
