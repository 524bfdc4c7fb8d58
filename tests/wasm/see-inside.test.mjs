// The engine's "see inside, part 1" bindings under Node against the native CLI: the inspection document
// (inspectJson) against `glassbox inspect --json`, the sampling pipeline against the document's steps,
// attention step by step against the attention rows and the formula, and the logit lens against the
// document's and the model's own next-token distribution.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { cli, nativeInspection, requireFiles, stories, storiesEngine, wasmDir } from './helpers.mjs';

const engineFile = path.join(wasmDir, 'glassbox-engine.mjs');
const { model: bin, tokenizer: tok } = stories;
const PROMPT = 'Once upon a time, there was a little girl';
const SAMPLER = { temperature: 0.8, topK: 40, topP: 0.9, seed: 7 };
const STEPS = 12;

async function loadedEngine() {
  const engine = await storiesEngine();
  engine.setSampler(SAMPLER);
  return engine;
}

function nativeDocument() {
  return nativeInspection(PROMPT, '--steps', STEPS, '--temperature', SAMPLER.temperature, '--top-k', SAMPLER.topK, '--top-p', SAMPLER.topP, '--seed', SAMPLER.seed);
}

/** Generates as the page does, collecting each step's pipeline; returns them with the tokens. */
function generate(engine) {
  engine.start(PROMPT, { maxTokens: STEPS });
  const steps = [];
  for (;;) {
    const token = engine.step();
    steps.push({ token, pipeline: engine.samplingPipeline(10) });
    if (token.end) return steps;
  }
}

const f32 = (x) => Math.fround(x);

test('inspectJson is the native inspect document, and the generation after it is unchanged', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok, cli)) return;
  const engine = await loadedEngine();
  const before = generate(engine).map((s) => s.token.id);
  const document = JSON.parse(engine.inspectJson(PROMPT, { steps: STEPS }));
  const native = nativeDocument();
  assert.deepEqual(document, native);
  assert.deepEqual(before, native.steps.map((s) => s.chosen), 'the engine samples what the CLI samples');
  assert.deepEqual(engine.sequence().length, native.tokens.length - 1, 'the generation was left alone');
});

test('samplingPipeline gives each step of the document, the chosen token among the top-p candidates', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok, cli)) return;
  const engine = await loadedEngine();
  const steps = generate(engine);
  const native = nativeDocument();
  assert.equal(steps.length, native.steps.length);
  steps.forEach(({ token, pipeline }, i) => {
    const expected = native.steps[i];
    assert.equal(token.id, expected.chosen);
    assert.equal(pipeline.topKKept, expected.top_k_kept);
    assert.equal(pipeline.topPKept, expected.top_p_kept);
    pipeline.tokens.forEach((c, j) => {
      const e = expected.candidates[j];
      assert.equal(c.id, e.id);
      assert.equal(f32(c.pTemperature1), f32(e.p_t1));
      assert.equal(f32(c.pTemperature), f32(e.p_temperature));
      assert.equal(f32(c.pTopK), f32(e.p_top_k));
      assert.equal(f32(c.pTopP), f32(e.p_top_p));
      assert.equal(c.keptByTopP, c.pTopP > 0);
    });
    const chosen = pipeline.tokens.find((c) => c.id === token.id);
    if (chosen) assert.ok(chosen.keptByTopP, `step ${i}: the chosen token survives top-p`);
  });
});

test('attentionDetail follows the formula and equals the attention rows', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  generate(engine);
  const n = engine.sequence().length;
  const info = engine.info();
  for (const [layer, head] of [[0, 0], [info.layers - 1, info.heads - 1], [2, 3]]) {
    const rows = engine.attention(layer, head, 0, n).matrix;
    for (const query of [0, 1, Math.floor(n / 2), n - 1]) {
      const d = engine.attentionDetail(layer, head, query);
      assert.equal(d.keys, query + 1);
      assert.equal(d.headDim, info.headDim);
      assert.equal(d.scale, Math.fround(Math.sqrt(info.headDim)));
      assert.equal(d.ropeAngles.length, info.headDim / 2, 'stories260K turns q by RoPE');
      let sum = 0;
      for (let j = 0; j < d.keys; ++j) {
        assert.equal(d.probabilities[j], rows[query * n + j], `L${layer} H${head} q${query} k${j}`);
        assert.ok(Math.abs(d.scores[j] - d.dots[j] / d.scale) <= 1e-5 * Math.max(1, Math.abs(d.scores[j])));
        let dot = 0;
        for (let i = 0; i < d.headDim; ++i) dot += d.q[i] * d.keyRows[j * d.headDim + i];
        assert.ok(Math.abs(dot - d.dots[j]) <= 1e-4 * Math.max(1, Math.abs(dot)), `q·k ${dot} vs ${d.dots[j]}`);
        sum += d.probabilities[j];
      }
      assert.ok(Math.abs(sum - 1) < 1e-5);
      for (let i = 0; i < d.headDim; ++i) {
        let out = 0;
        for (let j = 0; j < d.keys; ++j) out += d.probabilities[j] * d.valueRows[j * d.headDim + i];
        assert.ok(Math.abs(out * d.headScale - d.output[i]) <= 1e-4 * Math.max(1, Math.abs(out)));
      }
    }
  }
  assert.throws(() => engine.attentionDetail(0, 0, n), (e) => e.code === 'bad-argument' || e.code === 'not-recorded');
});

test('logitLens: each layer as the document has it, the last row the model\'s own prediction', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok, cli)) return;
  const engine = await loadedEngine();
  generate(engine);
  const native = nativeDocument();
  const n = engine.sequence().length;
  const lens = engine.logitLens(0, n, 1);
  assert.equal(lens.layers, engine.info().layers + 1);
  assert.equal(lens.size, n);
  // The document's layer L is the output of layer L: the lens's row L + 1 (row 0 is the embedding).
  native.logit_lens.forEach((row, layer) =>
    row.slice(0, n).forEach((entry, position) => {
      const at = (layer + 1) * n + position;
      assert.equal(lens.ids[at], entry.id, `layer ${layer} position ${position}`);
      assert.equal(lens.probabilities[at], f32(entry.probability));
    }),
  );
  const top = engine.topTokens(1)[0];
  const last = (lens.layers - 1) * n + n - 1;
  assert.equal(lens.ids[last], top.id);
  assert.equal(lens.probabilities[last], top.probability);
  assert.throws(() => engine.logitLens(0, n + 1, 1), (e) => e.code === 'bad-argument');
});

test('a sampled run extended token by token (the page\'s Step) draws what one longer run draws', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  // The text so far: the tokens read, then the last one drawn (not read yet).
  const text = (last) => [...engine.sequence(), last.id];
  const run = (maxTokens) => {
    engine.start(PROMPT, { maxTokens });
    let token;
    while (!(token = engine.step()).end);
    return text(token);
  };
  const longer = run(STEPS + 3);
  let sequence = run(STEPS);
  for (let i = 0; i < 3; i++) {
    const { kept } = engine.startTokens(sequence, { maxTokens: 1 });
    assert.equal(kept, sequence.length - 1, 'the positions read are kept');
    sequence = text(engine.step());
  }
  assert.deepEqual(sequence, longer);
  // New settings start the random sequence again from their seed: the token drawn is the one a fresh start
  // from the same tokens draws.
  const story = run(STEPS);
  engine.setSampler({ ...SAMPLER, seed: 8 });
  assert.equal(engine.startTokens(story, { maxTokens: 1 }).kept, story.length - 1);
  const drawn = engine.step().id;
  engine.reset();
  assert.equal(engine.startTokens(story, { maxTokens: 1 }).kept, 0);
  assert.equal(engine.step().id, drawn);
  engine.setSampler(SAMPLER);
  engine.dispose();
});
