// The circuit tools in Chromium: direct logit attribution at the current step (its parts add up to the
// logit, and are the engine's under Node for the same tokens; a second token splits their difference), and
// activation patching between two prompts (the worker's maps equal `glassbox patch --json`, with progress and
// Cancel, and an error in words for prompts of different lengths).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, generate, outputDir, skipOrFail } from './harness.mjs';
import { cli, stories, storiesEngine } from '../wasm/helpers.mjs';

const PROMPT = 'Once upon a time, there was a little girl named Lily.';
const suite = browserSuite();
const { withPage } = suite;
const idle = (page) => page.evaluate(() => window.__glassbox.circuits.whenIdle());
/** Grid cells that read "-0.00" (a sign that is not there). */
const negativeZeros = (page) => page.$$eval('.attribution-grid td, .patch-grid td, .neuron-table td', (cells) => cells.map((c) => c.textContent).filter((t) => /(^|\s)-0\.0+(\s|$)/.test(t)));
const attribution = (page) =>
  page.evaluate(() => {
    const a = window.__glassbox.circuits.attribution;
    return a && { position: a.position, token: a.token, baselineToken: a.baselineToken, logit: a.logit, sumOfParts: a.sumOfParts, embedding: a.embedding, bias: a.bias, headParts: Array.from(a.headParts), mlp: Array.from(a.mlp) };
  });

test('c1. attribution splits the current step\'s logit into parts that add up, as the engine does', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await generate(page, PROMPT, { temperature: 0, maxTokens: 10 });
    await page.locator('#attribution-card').scrollIntoViewIfNeeded();
    await page.locator('.kl-bar, #tokens .chip').first().waitFor();
    await page.click('#tokens .chip[data-index="6"]');
    await idle(page);
    const a = await attribution(page);
    const sequence = await page.evaluate(() => window.__glassbox.seeInside.sequence);
    assert.equal(a.position, 6);
    assert.equal(a.token, sequence[7], 'the token that came next');
    assert.ok(Math.abs(a.sumOfParts - a.logit) < 1e-4, `${a.sumOfParts} against ${a.logit}`);
    const info = await page.evaluate(() => window.__glassbox.info);
    assert.equal(await page.locator('.attribution-grid td.attribution-cell').count(), info.layers * (info.heads + 1));
    assert.deepEqual(await negativeZeros(page), [], 'a part that rounds to 0 reads 0.00');

    const engine = await storiesEngine();
    engine.startTokens(sequence.slice(0, 8), { maxTokens: 1 });
    engine.step();
    const native = engine.logitAttribution(6, sequence[7]);
    assert.deepEqual(a.headParts, Array.from(native.headParts));
    assert.deepEqual(a.mlp, Array.from(native.mlp));
    assert.equal(a.logit, native.logit);

    // At a sampled step its candidates are offered; a baseline splits the difference of the two logits.
    const promptLength = await page.evaluate(() => window.__glassbox.seeInside.promptLength);
    await page.click('#output .tok[data-index="2"]');
    await idle(page);
    const at = promptLength + 2;
    assert.equal((await attribution(page)).position, at);
    engine.startTokens(sequence.slice(0, at + 1), { maxTokens: 1 });
    engine.step();
    const options = await page.$$eval('#attribution-baseline option', (o) => o.map((x) => Number(x.value)));
    assert.ok(options.length >= 3, `nothing, the token drawn and its rivals: ${options}`);
    await page.selectOption('#attribution-baseline', String(options[2]));
    await idle(page);
    const d = await attribution(page);
    assert.equal(d.baselineToken, options[2]);
    assert.equal(d.token, sequence[at + 1]);
    const drawn = engine.logitAttribution(at, d.token);
    const other = engine.logitAttribution(at, d.baselineToken);
    assert.ok(Math.abs(d.logit - (drawn.logit - other.logit)) < 1e-9);
    assert.deepEqual(await negativeZeros(page), []);
    await page.locator('#attribution-card').screenshot({ path: path.join(outputDir, 'circuits-attribution.png') });
    assert.deepEqual(errors, []);
  });
});

test('c2. patching maps equal glassbox patch, with progress and Cancel', async (t) => {
  if (!fs.existsSync(cli)) return skipOrFail(t, `${cli} is absent: build the native CLI`);
  await withPage(t, async ({ page, errors }) => {
    await page.locator('#patching-card').scrollIntoViewIfNeeded();
    const clean = await page.inputValue('#patch-clean');
    const corrupt = await page.inputValue('#patch-corrupt');
    // Cancel right after starting: the page says so and can run again.
    await page.click('#patch-run');
    await page.click('#patch-cancel');
    await page.waitForFunction(() => /cancelled/i.test(document.querySelector('.patch-status').textContent));
    await page.click('#patch-run');
    await page.waitForFunction(() => window.__glassbox.circuits.patch !== null, null, { timeout: 60_000 });
    const r = await page.evaluate(() => {
      const p = window.__glassbox.circuits.patch;
      return { target: p.target, residual: Array.from(p.residual), heads: Array.from(p.headEffects), layers: p.layers, positions: p.positions, metricClean: p.metricClean };
    });
    const native = JSON.parse(execFileSync(cli, ['patch', '--model', stories.model, '--tokenizer', stories.tokenizer, '--clean', clean, '--corrupt', corrupt, '--json'], { encoding: 'utf8' }));
    assert.equal(r.target, native.target.id);
    assert.equal(r.residual.length, (r.layers + 1) * r.positions);
    native.residual.flat().forEach((e, i) => assert.ok(Math.abs(e - r.residual[i]) < 1e-6, `residual cell ${i}: ${r.residual[i]} against ${e}`));
    native.heads.flat().forEach((e, i) => assert.ok(Math.abs(e - r.heads[i]) < 1e-6, `head ${i}`));
    assert.equal(await page.locator('.patch-grid .patch-cell').count(), (r.layers + 1) * r.positions + r.layers * (await page.evaluate(() => window.__glassbox.info.heads)));
    assert.match(await page.textContent('.patch-status'), /forward passes in [\d.]+ s/);
    await page.locator('#patching-card').screenshot({ path: path.join(outputDir, 'circuits-patching.png') });

    // Prompts of different lengths: an error that names both.
    await page.fill('#patch-corrupt', 'Tim went home.');
    await page.click('#patch-run');
    await page.waitForFunction(() => /same number of tokens/.test(document.querySelector('.patch-status').textContent));
    assert.match(await page.textContent('.patch-status'), /clean one has \d+, the corrupt one \d+/);
    assert.deepEqual(errors, []);
  });
});
