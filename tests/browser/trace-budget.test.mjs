// The inspection trace keeps within its memory budget on a model the size of the ones people load: a
// random-weight model with the layer shape of Qwen2.5-0.5B (24 layers, 14 heads of 64, 2 KV heads, dim 896,
// feed-forward 4864; a 512-token vocabulary) as Q4_0, filled to its 2,048-token context in the page. Every
// view still works (the newest tokens' attention, the heads overview, the next-token bars), the trace holds no
// more than its budget, and the WebAssembly memory read back stays within weights + KV cache + budget.
// The model file is generated into models/bench/ (git-ignored) the first time.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { generate, openPage, repo, screenshot, startEnvironment, whenModelLoaded } from './harness.mjs';

const SHAPE = { dim: 896, layers: 24, heads: 14, kvHeads: 2, hidden: 4864, vocab: 512, context: 2048 };
const modelDir = path.join(repo, 'models', 'bench');
const modelFile = path.join(modelDir, 'shape-0.5B-q4_0.gguf');
const cli = process.env.GLASSBOX_CLI ?? path.join(repo, 'build', 'glassbox');
const tokenizer = path.join(repo, 'models', 'tok512.bin');
const requireAll = process.env.GLASSBOX_REQUIRE_MODELS === '1';
const MiB = 2 ** 20;

/** Writes the random-weight checkpoint with the shape above and converts it to a Q4_0 GGUF. */
function makeModel() {
  if (fs.existsSync(modelFile)) return;
  fs.mkdirSync(modelDir, { recursive: true });
  const checkpoint = path.join(os.tmpdir(), `glassbox-shape-0.5B-${process.pid}.bin`);
  try {
    execFileSync('/usr/bin/python3', [path.join(repo, 'tests', 'peers', 'make-bench-model.py'), checkpoint,
      '--dim', String(SHAPE.dim), '--layers', String(SHAPE.layers), '--heads', String(SHAPE.heads),
      '--kv-heads', String(SHAPE.kvHeads), '--hidden', String(SHAPE.hidden), '--vocab', String(SHAPE.vocab),
      '--seq-len', String(SHAPE.context)], { stdio: 'inherit' });
    execFileSync(cli, ['convert', '--model', checkpoint, '--tokenizer', tokenizer, '--output', `${modelFile}.part`,
      '--type', 'q4_0', '--name', 'shape-0.5B'], { stdio: 'inherit' });
    fs.renameSync(`${modelFile}.part`, modelFile);
  } finally {
    fs.rmSync(checkpoint, { force: true });
  }
}

/** A prompt of about `want` tokens (by the native tokenizer), so that generation runs into the context's end. */
function promptOf(want) {
  const sentence = 'Once upon a time there was a little dog who liked to run in the park with his friends. ';
  const count = (text) => JSON.parse(execFileSync(cli, ['tokenize', '--tokenizer', tokenizer, '--text', text, '--json'], { encoding: 'utf8' })).ids.length;
  const perSentence = count(sentence.repeat(10)) / 10;
  return sentence.repeat(Math.floor(want / perSentence));
}

let env;
let ready = false;
before(async () => {
  if (!fs.existsSync(cli) || !fs.existsSync(tokenizer)) {
    if (requireAll) throw new Error(`${cli} and ${tokenizer} are needed to make the test model`);
    return;
  }
  makeModel();
  env = await startEnvironment();
  ready = true;
});
after(async () => {
  await env?.close();
});

test('a 0.5B-shaped model at 2,048 tokens keeps its inspection trace within the budget, and every view works', { timeout: 1_200_000 }, async (t) => {
  if (!ready) return t.skip('the native CLI or models/tok512.bin is absent');
  const models = await env.startServer({ root: modelDir, base: '/bench/', cors: true }); // another site: it must allow the page
  const { context, page, errors } = await openPage(env);
  try {
    await whenModelLoaded(page);
    await page.click('#url-source summary');
    await page.fill('#model-url', new URL(path.basename(modelFile), models.url).href);
    await page.click('#url-form button[type="submit"]');
    const info = await whenModelLoaded(page, 2, 300_000);
    assert.equal(info.layers, SHAPE.layers);
    assert.equal(info.heads, SHAPE.heads);

    const loaded = await page.evaluate(() => window.__glassbox.memory());
    const started = Date.now();
    // Up to 8 tokens short of the context (whole sentences, so up to one sentence more): each generated token
    // costs a 0.5B-shaped forward pass, and the trace fills as well from the prompt as from generation.
    const prompt = promptOf(SHAPE.context - 8);
    const result = await generate(page, prompt, { temperature: 0, maxTokens: 200 });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(result.reason, 'context-full', `the generation ran to the end of the context (${result.error?.detail ?? ''})`);

    // The trace keeps the newest positions within its budget; the views read the newest 256.
    const perPosition = (SHAPE.layers + 1) * SHAPE.dim * 4;
    const memory = await page.evaluate(() => window.__glassbox.memory());
    const capacity = Math.floor(memory.traceBudgetBytes / perPosition);
    assert.ok(memory.traceBytes <= memory.traceBudgetBytes, `trace ${memory.traceBytes} B within ${memory.traceBudgetBytes} B`);
    for (const layer of [0, SHAPE.layers - 1]) {
      const trace = await page.evaluate((l) => window.__glassbox.attention(l, -1), layer);
      assert.equal(trace.total, SHAPE.context);
      assert.equal(trace.firstKept, SHAPE.context - capacity);
      assert.equal(trace.size, 256);
      assert.equal(trace.begin, SHAPE.context - 256);
      assert.equal(trace.heads, SHAPE.heads);
      assert.equal(trace.stats.length, 3 * SHAPE.heads);
      const n = trace.size;
      for (let h = 0; h < trace.heads; h++) {
        for (let q = 0; q < n; q += 37) {
          let sum = 0;
          for (let k = 0; k < n; k++) {
            const p = trace.matrix[(h * n + q) * n + k];
            if (k > q) assert.equal(p, 0, 'nothing above the diagonal');
            else assert.ok(p >= 0 && p <= 1);
            sum += p;
          }
          assert.ok(sum <= 1 + 1e-4, `a window row holds at most all of the row's weight (${sum})`);
        }
        const [entropy, sink, previous] = trace.stats.slice(3 * h, 3 * h + 3);
        assert.ok(entropy >= 0 && entropy <= Math.log2(SHAPE.context) + 1e-3, `entropy ${entropy}`);
        assert.ok(sink >= 0 && sink <= 1 && previous >= 0 && previous <= 1);
      }
    }

    // The views are drawn, and the attention view says what it left out and why.
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    await page.waitForSelector('canvas.heatmap');
    const note = await page.textContent('.window-note');
    assert.match(note, /newest 256 of 2048 tokens/);
    assert.match(note, new RegExp(`${Math.round(memory.traceBudgetBytes / MiB)} MiB budget that is the newest ${capacity} tokens`));
    assert.equal(await page.locator('.head-tile').count(), SHAPE.heads);
    assert.ok((await page.locator('#next-token .bar-row').count()) > 0, 'the next-token view shows candidates');
    await page.locator('.attention-card').screenshot({ path: path.join(repo, 'test-output', 'trace-budget-attention.png') });
    await screenshot(page, 'trace-budget');

    // Weights, KV cache and the trace budget, plus 32 MiB of scratch, and 20% more: the heap grows in steps of
    // a fifth of its size (Emscripten's MEMORY_GROWTH_GEOMETRIC_STEP), so it may hold that much unused.
    const weights = fs.statSync(modelFile).size;
    const kvCache = 2 * SHAPE.layers * SHAPE.context * (SHAPE.dim / SHAPE.heads) * SHAPE.kvHeads * 4;
    const bound = 1.2 * (weights + kvCache + memory.traceBudgetBytes + 32 * MiB);
    console.log(`# 0.5B shape, ${SHAPE.context} tokens: ${seconds.toFixed(1)} s; WebAssembly memory ${(loaded.wasmBytes / MiB).toFixed(0)} MiB after loading, ${(memory.wasmBytes / MiB).toFixed(0)} MiB at the end ` +
      `(weights ${(weights / MiB).toFixed(0)} MiB + KV cache ${(kvCache / MiB).toFixed(0)} MiB + trace ${(memory.traceBytes / MiB).toFixed(1)} MiB of a ` +
      `${(memory.traceBudgetBytes / MiB).toFixed(0)} MiB budget); bound ${(bound / MiB).toFixed(0)} MiB`);
    assert.ok(memory.wasmBytes <= bound, `WebAssembly memory ${memory.wasmBytes} B within ${bound} B`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await models.close();
  }
});
