// Special tokens written as text, glassbox against llama.cpp: the rendered chats of five real templates
// (tests/data/chat-templates, rendered by the page's web/src/worker/chat-template.js) and texts that test the
// rules at their edges, tokenized by `glassbox tokenize --special` and by llama.cpp with special-token parsing
// (node-llama-cpp's model.tokenize(text, true), llama.cpp's parse_special), on random-weight models whose
// vocabularies hold each template's special tokens (tests/reference/chat_models.py).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { cli, glassbox, llamaCpp, python, repo, requireFiles, run } from './helpers.mjs';
import { renderChat } from '../../web/src/worker/chat-template.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-chat-models-'));
after(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  const llama = await llamaCpp().catch(() => null);
  await llama?.dispose();
});

const TEMPLATES = {
  smollm2: 'smollm2-instruct.jinja',
  'qwen2.5': 'qwen2.5-instruct.jinja',
  qwen3: 'qwen3.jinja',
  gemma3: 'gemma-3-it.jinja',
  'llama3.2': 'llama-3.2-instruct.jinja',
};
const conversation = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hi <there>, what is 2+2?' },
  { role: 'assistant', content: 'It is 4.' },
  { role: 'user', content: 'Thanks! <|im_start|> is not a turn here, nor <end_of_turn' },
];

test('special tokens in text: glassbox tokenize --special splits as llama.cpp parse_special does', async (t) => {
  if (!requireFiles(t, cli, python)) return;
  const written = run(python, [path.join(repo, 'tests', 'reference', 'chat_models.py'), dir])
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const llama = await llamaCpp();
  let compared = 0;
  const real = written.filter((w) => w.name in TEMPLATES); // the real templates (not chat-broken.gguf's)
  for (const m of real) {
    const template = fs.readFileSync(path.join(repo, 'tests', 'data', 'chat-templates', TEMPLATES[m.name]), 'utf8');
    const specials = Object.keys(m.specials);
    const rendered = renderChat(template, conversation, { bosToken: m.bos, eosToken: m.eos, dateString: '24 Nov 2026' });
    const texts = [
      rendered,
      specials.join(''), // every special token back to back
      specials.map((s) => `a ${s} b`).join('\n'),
      `${specials[1]}${specials[1].slice(0, -1)}`, // a whole spelling, then one cut short
      'no special token at all',
    ];
    const model = await llama.loadModel({ modelPath: m.path });
    try {
      for (const text of texts) {
        const ours = JSON.parse(glassbox(['tokenize', '--tokenizer', m.path, '--text', text, '--json', '--no-bos', '--special'])).ids;
        const theirs = Array.from(model.tokenize(text, true));
        assert.deepEqual(ours, theirs, `${m.name}: tokens of ${JSON.stringify(text)}`);
        compared += 1;
      }
      // Without special-token parsing the spellings stay text, in both.
      const plain = JSON.parse(glassbox(['tokenize', '--tokenizer', m.path, '--text', rendered, '--json', '--no-bos'])).ids;
      assert.deepEqual(plain, Array.from(model.tokenize(rendered, false)), `${m.name}: the rendering as plain text`);
      assert.ok(plain.every((id) => id < 256), `${m.name}: no special token without --special`);
    } finally {
      await model.dispose();
    }
  }
  t.diagnostic(`${compared} texts over ${real.length} chat vocabularies tokenized identically`);
});
