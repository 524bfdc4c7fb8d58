// The engine's "see inside, part 2" bindings under Node against the native library: head statistics and
// roles (measure_heads) against `glassbox inspect --json`'s "heads", the stepped measurement against the
// one-call one, head ablation against the CLI's "ablation" and back, RoPE and sinusoidal positions against
// their definitions, and the anatomy against the CLI's and the model's parameter count.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cli, nativeInspection, requireFiles, stories, storiesEngine, wasmDir } from './helpers.mjs';

const engineFile = path.join(wasmDir, 'glassbox-engine.mjs');
const { model: bin, tokenizer: tok } = stories;
const PROMPT = 'Once upon a time, there was a little girl named Lily. She liked to play';
const loadedEngine = storiesEngine;
const inspect = (...extra) => nativeInspection(PROMPT, '--temperature', 0, ...extra);

/** Equal up to the last bits a platform's log2 may round differently. */
function close(found, expected, what) {
  assert.ok(Math.abs(found - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${found} vs ${expected}`);
}

function greedyTo(engine, prompt, maxTokens) {
  engine.setSampler({ temperature: 0 });
  engine.start(prompt, { maxTokens });
  const ids = [];
  for (;;) {
    const token = engine.step();
    ids.push(token.id);
    if (token.end) return ids;
  }
}

test('measureHeads gives the native inspect document\'s heads and role counts', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok, cli)) return;
  const doc = inspect('--steps', '60');
  const read = doc.tokens.slice(0, doc.attention[0][0].length).map((token) => token.id);
  assert.ok(read.length > 60);
  const engine = await loadedEngine();
  const measured = engine.measureHeads(read);
  assert.equal(measured.heads.length, doc.heads.length);
  doc.heads.forEach((expected, i) => {
    const found = measured.heads[i];
    const name = `layer ${expected.layer} head ${expected.head}`;
    assert.deepEqual([found.layer, found.head, found.role, found.effectiveRank], [expected.layer, expected.head, expected.role, expected.effective_rank], name);
    close(found.entropyBits, expected.entropy_bits, `${name} entropy`);
    close(found.uniformEntropyBits, expected.uniform_entropy_bits, `${name} uniform entropy`);
    close(found.sink, expected.sink, `${name} sink`);
    close(found.previousToken, expected.previous_token, `${name} previous`);
    close(found.local, expected.local, `${name} local`);
    close(found.induction, expected.induction, `${name} induction`);
  });
  assert.deepEqual(measured.roles, doc.head_roles);
  engine.dispose();
});

test('the stepped measurement gives the one-call numbers, one head per step, and leaves generation alone', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  const ids = greedyTo(engine, PROMPT, 40);
  const sequence = Array.from(engine.sequence());
  const top = engine.topTokens(5);
  const info = engine.info();
  const job = engine.beginMeasureHeads(sequence);
  assert.equal(job.total, info.layers * info.heads + 1);
  const steps = [];
  let step;
  do {
    step = job.step();
    steps.push(step.completed);
  } while (!step.done);
  assert.deepEqual(steps, Array.from({ length: job.total }, (_, i) => i + 1), 'one head per step, then the probe');
  const once = engine.measureHeads(sequence);
  assert.deepEqual(step.heads, once.heads);
  assert.deepEqual(step.roles, once.roles);
  const counted = Object.fromEntries(Object.keys(once.roles).map((role) => [role, once.heads.filter((h) => h.role === role).length]));
  assert.deepEqual(once.roles, counted, 'the summary counts the heads\' roles');
  // Measuring ran in a session of its own: the generation's trace and distribution are as they were.
  assert.deepEqual(Array.from(engine.sequence()), sequence);
  assert.deepEqual(engine.topTokens(5), top);
  assert.deepEqual(greedyTo(engine, PROMPT, 40), ids);
  assert.throws(() => job.step(), (e) => e.code === 'invalid-state');
  assert.throws(() => engine.measureHeads([]), (e) => e.code === 'bad-argument');
  engine.dispose();
});

test('ablate gives the native inspect document\'s ablation, and clearAblation gives the model back', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok, cli)) return;
  const spec = '0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,2.3=0.5';
  const doc = inspect('--steps', '4', '--ablate', spec);
  const engine = await loadedEngine();
  const info = engine.info();
  const table = new Array(info.layers * info.heads).fill(1);
  for (let h = 0; h < 8; h++) table[h] = 0;
  table[2 * info.heads + 3] = 0.5;
  // The document measures at the prompt's last position: generate one token, so the prompt is what is read.
  const before = greedyTo(engine, PROMPT, 30);
  engine.start(PROMPT, { maxTokens: 1 });
  engine.step();
  assert.equal(engine.sequence().length, doc.prompt_length);
  const change = engine.ablate(table);
  const expected = doc.ablation;
  assert.equal(change.position, expected.position);
  close(change.klBits, expected.kl_bits, 'KL');
  assert.ok(change.klBits > 0);
  assert.deepEqual([change.topBefore, change.topAfter], [expected.top_before, expected.top_after]);
  close(change.pTopBefore, expected.p_top_before, 'p(top before)');
  close(change.qTopBefore, expected.q_top_before, 'q(top before)');
  close(change.qTopAfter, expected.q_top_after, 'q(top after)');
  assert.deepEqual(Array.from(engine.headScales()), table.map(Math.fround));
  // The trace now holds the ablated run: a head switched off still attends, but the next layer differs.
  const ablatedAttention = engine.attention(1, 0).matrix;
  assert.equal(engine.clearAblation(), true);
  assert.equal(engine.headScales().length, 0);
  assert.notDeepEqual(engine.attention(1, 0).matrix, ablatedAttention, 'layer 1 attends differently with layer 0 off');
  // Ablating again from scratch gives the same change: the baseline is the model without ablation.
  assert.deepEqual(engine.ablate(table), change);
  // KL at every position the trace keeps (all of them here); the last is the measured change itself.
  assert.equal(change.comparedFrom, 0);
  assert.equal(change.klBitsByPosition.length, doc.prompt_length);
  assert.equal(change.klBitsByPosition.at(-1), change.klBits);
  assert.equal(change.topKeptByPosition.at(-1), change.topBefore === change.topAfter ? 1 : 0);
  // Mean ablation of two heads: a change of its own, and the next plain ablation measures against the model
  // as trained again.
  const ones = new Array(info.layers * info.heads).fill(1);
  const mean = engine.ablate(ones, -1, [3, info.heads + 1]);
  assert.deepEqual(Array.from(mean.meanHeads), [3, info.heads + 1]);
  assert.ok(mean.klBits > 0 && mean.klBitsByPosition.length === doc.prompt_length);
  assert.ok(Math.max(...mean.klBitsByPosition) > 0);
  assert.deepEqual(engine.ablate(table), change);
  assert.throws(() => engine.ablate(ones, -1, [info.layers * info.heads]), (e) => e.code === 'bad-argument' && /mean ablation/.test(e.message));
  engine.clearAblation();
  assert.equal(engine.clearAblation(), false);
  assert.deepEqual(greedyTo(engine, PROMPT, 30), before, 'after clearAblation, generation gives the same tokens');
  assert.throws(() => engine.ablate([1, 0]), (e) => e.code === 'bad-argument');
  // Measured at an earlier position of a longer text (the page's current step): the change the prompt alone
  // gives after its last token.
  engine.start(PROMPT, { maxTokens: 10 });
  while (!engine.step().end);
  const earlier = engine.ablate(table, doc.prompt_length - 1);
  assert.equal(earlier.position, doc.prompt_length - 1);
  const near = (found, want, what) => assert.ok(Math.abs(found - want) <= 1e-5 * Math.max(1, Math.abs(want)), `${what}: ${found} vs ${want}`);
  near(earlier.klBits, expected.kl_bits, 'KL at an earlier position'); // read back from the trace: float rounding apart
  assert.deepEqual([earlier.topBefore, earlier.topAfter], [expected.top_before, expected.top_after]);
  near(earlier.qTopAfter, expected.q_top_after, 'q(top after) at an earlier position');
  engine.clearAblation();
  assert.throws(() => engine.ablate(table, engine.sequence().length), (e) => e.code === 'bad-argument');
  engine.reset();
  assert.throws(() => engine.ablate(table), (e) => e.code === 'invalid-state');
  engine.dispose();
});

test('RoPE: q·k depends on the offset alone, with the model\'s own angles; the sinusoidal code is the textbook one', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  const p = engine.positionInfo();
  assert.deepEqual([p.kind, p.headDim, p.rotaryDim, p.theta], ['rope', 8, 8, 10000]);
  greedyTo(engine, PROMPT, 5);
  const q = engine.headQuery(2, 5, 3);
  const k = engine.headQuery(1, 1, 7);
  assert.equal(q.length, p.headDim);
  const n = 48;
  const dots = engine.ropeDotProducts(q, k, n);
  assert.equal(dots.length, n * n);
  let spread = 0;
  let largest = 0;
  for (let d = -(n - 1); d < n; d++) {
    const values = [];
    for (let m = Math.max(0, d); m < Math.min(n, n + d); m++) values.push(dots[m * n + (m - d)]);
    spread = Math.max(spread, Math.max(...values) - Math.min(...values));
    largest = Math.max(largest, ...values.map(Math.abs));
  }
  assert.ok(spread <= 1e-4 * Math.max(1, largest), `each diagonal holds one value (spread ${spread})`);
  // At offset 0 it is the plain dot product.
  const plain = q.reduce((sum, v, i) => sum + v * k[i], 0);
  assert.ok(Math.abs(dots[0] - plain) <= 1e-4 * Math.max(1, Math.abs(plain)));
  // The angle of pair i at position m is m · theta^(-2i / rotary_dim), its frequency rounded to float.
  const angles = engine.ropeAngles(11);
  assert.equal(angles.length, p.rotaryDim / 2);
  angles.forEach((a, i) => assert.ok(Math.abs(a - 11 * Math.fround(p.theta ** ((-2 * i) / p.rotaryDim))) < 1e-9, `pair ${i}: ${a}`));
  const table = engine.sinusoidalTable(20, 16);
  for (let pos = 0; pos < 20; pos++) {
    for (let i = 0; i < 16; i++) {
      const angle = pos / 10000 ** ((i - (i % 2)) / 16);
      const expected = i % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
      assert.ok(Math.abs(table[pos * 16 + i] - expected) < 1e-5, `PE(${pos}, ${i}) = ${table[pos * 16 + i]}, not ${expected}`);
    }
  }
  assert.throws(() => engine.ropeDotProducts([1, 2], [1, 2], 4), (e) => e.code === 'bad-argument');
  assert.throws(() => engine.sinusoidalTable(0, 16), (e) => e.code === 'bad-argument');
  engine.dispose();
});

test('the anatomy adds up to the model\'s parameter count and matches the native inspect document', async (t) => {
  if (!requireFiles(t, engineFile, bin, tok)) return;
  const engine = await loadedEngine();
  const anatomy = engine.anatomy();
  const info = engine.info();
  assert.equal(anatomy.parameters, info.parameters);
  assert.equal(anatomy.bytes, info.weightBytes);
  const sum = Object.values(anatomy.components).reduce((s, c) => s + c.parameters, 0);
  assert.equal(sum, anatomy.parameters, 'the components add up to the total');
  const short = engine.flopsPerToken(10);
  const long = engine.flopsPerToken(500);
  assert.ok(long.attentionScores > short.attentionScores, 'the scores grow with the sequence');
  assert.deepEqual([long.attentionProjections, long.feedForward, long.output], [short.attentionProjections, short.feedForward, short.output]);
  assert.equal(long.total, long.attentionProjections + long.attentionScores + long.feedForward + long.output);
  if (fs.existsSync(cli)) {
    const doc = inspect('--steps', '4').anatomy;
    const names = { tokenEmbedding: 'token_embedding', positionEmbedding: 'position_embedding', output: 'output', attentionQ: 'attention_q', attentionK: 'attention_k', attentionV: 'attention_v', attentionO: 'attention_o', feedForward: 'feed_forward', norms: 'norms', biases: 'biases' };
    for (const [ours, theirs] of Object.entries(names)) assert.deepEqual(anatomy.components[ours], doc.components[theirs], ours);
    assert.equal(anatomy.bytesReadPerToken, doc.bytes_read_per_token);
    const f = engine.flopsPerToken(doc.flops_per_token.sequence_length);
    assert.deepEqual(
      [f.attentionProjections, f.attentionScores, f.feedForward, f.output, f.total],
      ['attention_projections', 'attention_scores', 'feed_forward', 'output', 'total'].map((k) => doc.flops_per_token[k]),
    );
  }
  engine.dispose();
});
