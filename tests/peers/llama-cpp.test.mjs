// glassbox against llama.cpp itself: random-weight GGUF models of the llama, qwen2 and gpt2 architectures
// with real vocabularies (written by tests/reference/make_fixtures.py) must give the same tokenization and
// the same 32 greedy tokens in both engines; and llama.cpp must read the GGUF files `glassbox convert` writes.
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
  modelsDir,
  requireFiles,
  vectorTexts,
  vectorsDir,
} from './helpers.mjs';

const GREEDY_TOKENS = 32;
const PROMPTS = ['Once upon a time', 'The quick brown fox 123', ''];

after(async () => {
  const llama = await llamaCpp().catch(() => null);
  await llama?.dispose();
});

for (const name of ['llama-spm-vocab', 'llama-bpe-vocab', 'qwen2-vocab', 'gpt2-vocab']) {
  test(`${name}: same tokenization and the same ${GREEDY_TOKENS} greedy tokens as llama.cpp`, async (t) => {
    const file = path.join(fixtures, `${name}.gguf`);
    if (!requireFiles(t, cli, file, vectorsDir)) return;
    const llama = await llamaCpp();
    const model = await llama.loadModel({ modelPath: file });
    try {
      const texts = vectorTexts();
      let same = 0;
      for (const text of texts) {
        const ours = glassboxTokenize(file, text);
        const theirs = Array.from(model.tokenize(text, false));
        assert.deepEqual(ours, theirs, `tokens of ${JSON.stringify(text)}`);
        same += 1;
      }
      const endIds = [model.tokens.eos, model.tokens.bos].filter((id) => id != null);
      for (const prompt of PROMPTS) {
        const ours = glassboxGreedy(file, prompt, 256);
        if (ours.prompt_ids.length === 0) continue; // no BOS to start from (gpt2's vocabulary adds none)
        const theirs = await llamaGreedy(model, ours.prompt_ids, GREEDY_TOKENS, endIds);
        const oursFirst = ours.generated_ids.slice(0, theirs.length);
        assert.deepEqual(oursFirst, theirs, `greedy tokens after ${JSON.stringify(prompt)}`);
        assert.ok(new Set(theirs).size > 3, 'the model says more than one thing (a meaningful comparison)');
      }
      t.diagnostic(`${name}: ${same}/${texts.length} tokenizations identical, greedy continuations identical`);
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
    for (const type of ['f32', 'f16', 'q8_0']) {
      const out = path.join(dir, `stories260K.${type}.gguf`);
      glassbox(['convert', '--model', bin, '--tokenizer', tok, '--output', out, '--type', type]);
      const model = await llama.loadModel({ modelPath: out });
      try {
        assert.deepEqual(Array.from(model.tokenize('Once upon a time', false)), [403, 407, 261, 378]);
        const theirs = await llamaGreedy(model, [model.tokens.bos], GREEDY_TOKENS, []);
        const ours = glassboxGreedy(out, '', GREEDY_TOKENS + 1).generated_ids;
        const agree = theirs.findIndex((id, i) => id !== ours[i]);
        t.diagnostic(`${type}: llama.cpp and glassbox agree on ${agree < 0 ? theirs.length : agree}/${theirs.length} greedy tokens`);
        // Float weights decode identically; Q8_0 too for this many tokens, though llama.cpp also quantizes activations.
        assert.deepEqual(theirs, ours.slice(0, theirs.length), `${type}: greedy tokens`);
      } finally {
        await model.dispose();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
