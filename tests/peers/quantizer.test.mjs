// glassbox and llama.cpp on files written by llama.cpp's own quantizer, in every K-quant and legacy type
// glassbox reads. The other block-type checks (llama-cpp.test.mjs) use random blocks the NumPy reference
// writes; here real quantization chooses the scales and the per-tensor type mix (Q4_K_M's Q6_K for attn_v,
// ffn_down and the classifier, Q4_0's Q6_K classifier, ...), as in the files people download.
//
// The quantizer is llama-quantize: its own source files from the llama.cpp source node-llama-cpp ships,
// compiled against the libraries node-llama-cpp ships prebuilt from that source (scripts/build-llama-peers.sh
// quantize, into build-peers/; seconds, once), so it quantizes with the code llama.cpp runs here. The source model
// is an F32 random-weight `llama` file from tests/reference/quantizer_model.py (dim 256: every row is whole
// 256-value super-blocks; the tiny 64-token vocabulary). For each type:
//   - glassbox's logits at each of 16 greedy steps equal the reference's, computed from the same file's
//     blocks decoded as ggml defines them (and the inputs of the products glassbox computes with integer dots,
//     its Q8_0 / Q4_0 / Q4_K / Q5_K / Q6_K / IQ4_NL / IQ4_XS matrices, rounded to Q8_0 blocks as glassbox rounds them), within
//     reference_fixtures_test.cpp's tolerance (1e-5 of the position's largest logit), and its greedy tokens
//     are that reference's;
//   - llama.cpp's 16 greedy tokens are the reference's greedy tokens computed with the inputs of each product
//     rounded as ggml's CPU code rounds them for that weight type (Q8_0 / Q8_1 / Q8_K blocks; for Q4_1 and
//     Q5_1 also ggml's use of the Q8_1 block sums, ggml_quants.Q8_1Product). Without that rounding most
//     types part ways with llama.cpp within a few tokens, so the check sees it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  cli,
  glassbox,
  llamaCpp,
  llamaGreedy,
  llamaTokenize,
  peersModules,
  python,
  repo,
  requireFiles,
  requireNone,
  run,
} from './helpers.mjs';

// llama-quantize's names for the file types; the first two parts name the main block type of each.
const TYPES = ['Q4_K_M', 'Q5_K_M', 'Q3_K_M', 'Q2_K', 'Q6_K', 'Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0', 'IQ4_NL', 'IQ4_XS'];
const STEPS = 16; // tests/reference/quantizer_model.py's GREEDY_TOKENS
const VOCAB = 64;
const TOLERANCE = 1e-5; // reference_fixtures_test.cpp's kTolerance
// Where glassbox rounds a product's input to 8 bits (its integer kernels) and the reference finds the input
// within make_fixtures.MIN_TIE_DISTANCE of a rounding tie, float32 and float64 may round it differently; one
// such flip moved these logits by up to 1.7e-2 of the scale (IQ4_NL, since its matrices take the integer
// kernels; 2.0e-3 before, when only its classifier's input was rounded; Q8_0 8.7e-3, Q4_K_M 2.6e-4, Q5_0 1.8e-4).
// Those steps (from the tie on, or only its own step for the classifier's input) are held to this bound.
const ROUNDING_FLIP_BOUND = 2e-2;
const PROMPT = 'once upon a time';

const bundle = path.join(peersModules, 'node-llama-cpp', 'llama', 'gitRelease.bundle');
const prebuilt = path.join(peersModules, '@node-llama-cpp', 'linux-x64', 'bins', 'linux-x64', 'libllama-common.so');
const reference = path.join(repo, 'tests', 'reference', 'quantizer_model.py');
const startedAt = Date.now();
let setup = null;

after(async () => {
  if (setup) fs.rmSync((await setup.catch(() => ({}))).dir ?? '', { recursive: true, force: true });
  const llama = await llamaCpp().catch(() => null);
  await llama?.dispose();
  process.stdout.write(`# quantizer cross-check: ${((Date.now() - startedAt) / 1000).toFixed(1)} s in all\n`);
});

/** The programs the quantizer's build needs that are not on PATH. */
function missingTools() {
  return ['git', 'c++'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
}

/** Once per file: llama-quantize (built where absent) and the F32 source model in a temporary folder. */
function prepare() {
  setup ??= (async () => {
    const began = Date.now();
    const built = spawnSync(path.join(repo, 'scripts', 'build-llama-peers.sh'), ['quantize'], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`scripts/build-llama-peers.sh quantize failed:\n${built.stderr.slice(-4000)}`);
    const buildSeconds = (Date.now() - began) / 1000;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-quantizer-'));
    const source = path.join(dir, 'source.f32.gguf');
    run(python, [reference, 'write', source]);
    return { quantize: built.stdout.trim(), dir, source, buildSeconds };
  })();
  return setup;
}

for (const type of TYPES) {
  test(`${type} from llama.cpp's quantizer: glassbox's logits are the reference's; llama.cpp's greedy tokens are the reference's with ggml's rounding`, async (t) => {
    if (!requireFiles(t, cli, python)) return;
    const absent = [bundle, prebuilt].filter((f) => !fs.existsSync(f));
    if (!requireNone(t, absent, "scripts/install-deps.sh installs node-llama-cpp's source and libraries")) return;
    if (!requireNone(t, missingTools(), 'git and a C++ compiler build llama-quantize')) return;
    const { quantize, dir, source, buildSeconds } = await prepare();
    if (type === TYPES[0]) t.diagnostic(`llama-quantize ready in ${buildSeconds.toFixed(1)} s (built only where absent)`);
    const file = path.join(dir, `${type}.gguf`);
    run(quantize, [source, file, type, '2']);
    const inspection = path.join(dir, `${type}.inspect.json`);
    const args = ['--model', file, '--prompt', PROMPT, '--steps', String(STEPS), '--temperature', '0'];
    fs.writeFileSync(inspection, glassbox(['inspect', ...args, '--candidates', String(VOCAB), '--json']));
    const ref = JSON.parse(run(python, [reference, 'check', file, inspection]));

    const kinds = Object.values(ref.types);
    const main = type.split('_').slice(0, 2).join('_');
    assert.ok(kinds.includes(main), `${type}: the file holds ${main} blocks (${[...new Set(kinds)]})`);
    assert.equal(ref.steps_compared, STEPS, 'glassbox ran every greedy step (no end of text)');
    assert.deepEqual(ref.glassbox_greedy, ref.reference_greedy_glassbox_inputs, `${type}: glassbox's greedy tokens`);
    assert.ok(ref.worst_relative_error <= TOLERANCE, `${type}: glassbox's logits differ by ${ref.worst_relative_error}`);
    assert.ok(
      ref.worst_relative_error_everywhere <= ROUNDING_FLIP_BOUND,
      `${type}: glassbox's logits differ by ${ref.worst_relative_error_everywhere} at the steps near a rounding tie`,
    );

    const llama = await llamaCpp();
    const model = await llama.loadModel({ modelPath: file });
    try {
      assert.deepEqual(llamaTokenize(model, PROMPT), ref.prompt_ids, 'both engines prompt with the same tokens');
      const theirs = await llamaGreedy(model, ref.prompt_ids, STEPS, []);
      const agree = (expected) => {
        const first = theirs.findIndex((id, i) => id !== expected[i]);
        return first < 0 ? theirs.length : first;
      };
      const counts = {};
      for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
      t.diagnostic(
        `${type}: tensors ${Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ')}; glassbox's logits ` +
          `within ${ref.worst_relative_error.toExponential(2)} of the reference over ${ref.steps_clear_of_ties}/` +
          `${STEPS} steps clear of rounding ties (${ref.worst_relative_error_everywhere.toExponential(2)} over all); llama.cpp ` +
          `agrees with the reference on ${agree(ref.reference_greedy_ggml_inputs)}/${STEPS} greedy tokens ` +
          `(ggml-rounded inputs; smallest gap between its top two logits ` +
          `${Math.min(...ref.ggml_margins).toExponential(1)} of the scale), ${agree(ref.reference_greedy)}/${STEPS} ` +
          `with float inputs`,
      );
      assert.ok(new Set(theirs).size > 3, 'the model says more than one thing (a meaningful comparison)');
      assert.deepEqual(theirs, ref.reference_greedy_ggml_inputs, `${type}: llama.cpp's greedy tokens`);
    } finally {
      await model.dispose();
    }
  });
}
