// Memory over repeated loads and reloads (issue 11): loading models again and again, and reloading the page,
// must not pile up memory. The main thread's JavaScript heap is read through the DevTools protocol after a
// garbage collection; the worker's WebAssembly memory from the engine (window.__glassbox.memory()). The
// WebAssembly memory grows to a high-water mark and never shrinks, so what must hold is that the mark stops
// rising once a model has been replaced once (the old and the new model side by side during a load).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { browserSuite, dropAndSettle, fileOf, generate, haveStories, modelFile, skipOrFail, whenModelLoaded } from './harness.mjs';

const suite = browserSuite();
const { withPage } = suite;
const MiB = 1024 * 1024;
const LOADS = 10;

/** The main thread's JavaScript heap in use, after a full garbage collection. */
async function jsHeapBytes(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize;
}

const mib = (bytes) => (bytes / MiB).toFixed(1);

test('ten loads and ten reloads leave the main thread\'s heap and the engine\'s memory flat', { timeout: 600_000 }, async (t) => {
  if (!haveStories || !fs.existsSync(modelFile('stories260K.gguf'))) return skipOrFail(t, 'models/stories260K.{bin,gguf} and tok512.bin are absent: run scripts/fetch-models.sh');
  await withPage(t, async ({ page, errors }) => {
    const cdp = await page.context().newCDPSession(page);
    const pair = [fileOf('stories260K.bin'), fileOf('tok512.bin')];
    const gguf = [fileOf('stories260K.gguf')];
    await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 16 });
    const js = [await jsHeapBytes(cdp)];
    const wasm = [(await page.evaluate(() => window.__glassbox.memory())).wasmBytes];
    for (let i = 0; i < LOADS; ++i) {
      assert.equal(await dropAndSettle(page, i % 2 === 0 ? gguf : pair), 'loaded', `load ${i + 1}`);
      const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 16 });
      assert.equal(result.ids.length, 16, `load ${i + 1} generates`);
      js.push(await jsHeapBytes(cdp));
      wasm.push((await page.evaluate(() => window.__glassbox.memory())).wasmBytes);
    }
    t.diagnostic(`main-thread JS heap over ${LOADS} loads (MiB): ${js.map(mib).join(', ')}`);
    t.diagnostic(`engine WebAssembly memory over ${LOADS} loads (MiB): ${wasm.map(mib).join(', ')}`);
    // Flat: the last load holds no more than the first plus a little (DOM and view buffers vary by a few MiB).
    assert.ok(js.at(-1) <= js[1] + 4 * MiB, `JS heap grew from ${mib(js[1])} to ${mib(js.at(-1))} MiB`);
    // The high-water mark settles after the first replacement (both models in memory during a load).
    assert.ok(wasm.at(-1) <= wasm[2] + 8 * MiB, `WebAssembly memory grew from ${mib(wasm[2])} to ${mib(wasm.at(-1))} MiB`);

    const reloads = [];
    for (let i = 0; i < LOADS; ++i) {
      await page.reload();
      await whenModelLoaded(page);
      reloads.push(await jsHeapBytes(cdp));
    }
    t.diagnostic(`main-thread JS heap over ${LOADS} reloads (MiB): ${reloads.map(mib).join(', ')}`);
    // The first reloads warm caches (compiled code) and the heap rises a few MiB, then levels off: the second
    // half may not climb above the first half's peak, as it would if each reload left something behind.
    const firstHalfPeak = Math.max(...reloads.slice(0, LOADS / 2));
    assert.ok(reloads.at(-1) <= firstHalfPeak + 2 * MiB, `JS heap rose to ${mib(reloads.at(-1))} MiB after the first reloads' peak of ${mib(firstHalfPeak)} MiB`);
    const result = await generate(page, 'Once upon a time', { temperature: 0, maxTokens: 16 });
    assert.equal(result.ids.length, 16, 'the page still generates after the reloads');
    assert.deepEqual(errors, []);
  });
});
