// The engine's chat side under Node, as the page's worker drives it (web/src/worker/chat.ts): a GGUF that
// carries a real chat template (tests/reference/chat_models.py) gives its template and special tokens
// (chatInfo), a rendered conversation tokenizes with its special tokens, a turn ends at the end of turn, and
// the next turn keeps the conversation's positions (startTokens, Generator::extend in the core).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, test } from 'node:test';
import { createEngine, repo, requireFiles, wasmDir } from './helpers.mjs';
import { renderChat } from '../../web/src/worker/chat-template.js';

const python = '/usr/bin/python3';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glassbox-wasm-chat-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a chat template model: chatInfo, special tokens, end of turn, and a second turn on the same session', async (t) => {
  if (!requireFiles(t, path.join(wasmDir, 'glassbox-engine.mjs'), python)) return;
  const models = execFileSync(python, [path.join(repo, 'tests', 'reference', 'chat_models.py'), dir], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const qwen = models.find((m) => m.name === 'qwen2.5');
  const { MODEL_SLOT } = await import('../../wasm/engine.js');
  const engine = await createEngine();
  engine.uploadBytes(MODEL_SLOT, fs.readFileSync(qwen.path), 'chat-qwen2.5.gguf');
  engine.load('chat-qwen2.5.gguf');

  const info = engine.chatInfo();
  assert.equal(info.template, fs.readFileSync(path.join(repo, 'tests', 'data', 'chat-templates', 'qwen2.5-instruct.jinja'), 'utf8'));
  const imEnd = qwen.specials['<|im_end|>'];
  // Qwen's file names no end of turn: <|im_end|> ends a reply by its spelling, <|endoftext|> as EOS.
  assert.deepEqual(Array.from(info.endIds), [qwen.specials['<|endoftext|>'], imEnd]);
  assert.deepEqual(Array.from(info.specialIds), Object.values(qwen.specials));

  const messages = [{ role: 'user', content: 'Hi' }];
  const text = renderChat(info.template, messages);
  const parsed = engine.tokenize(text, false, { parseSpecial: true });
  const plain = engine.tokenize(text, false);
  assert.equal(parsed.filter((s) => s.id === qwen.specials['<|im_start|>']).length, 3);
  assert.ok(plain.every((s) => s.id < 256), 'without parseSpecial the markers stay bytes');
  assert.equal(parsed[0].end, '<|im_start|>'.length, 'a special token covers its whole spelling');

  engine.setSampler({ temperature: 0 });
  const first = engine.startTokens(parsed.map((s) => s.id), { maxTokens: 64 });
  assert.equal(first.kept, 0);
  const reply = [];
  for (;;) {
    const token = engine.step();
    reply.push(token.id);
    if (token.end) {
      assert.equal(token.reason, 'end-of-text');
      break;
    }
  }
  assert.equal(reply.at(-1), imEnd, 'the reply ends at <|im_end|>');

  // The next turn: the conversation so far as the model read and wrote it, then the template's text for the
  // user's next message.
  const conversation = [...parsed.map((s) => s.id), ...reply];
  const tail = engine.tokenize('\n<|im_start|>user\nAgain<|im_end|>\n<|im_start|>assistant\n', false, { parseSpecial: true }).map((s) => s.id);
  const second = engine.startTokens([...conversation, ...tail], { maxTokens: 4 });
  assert.equal(second.kept, conversation.length - 1, 'every position the session ran is kept');
  engine.step();
  assert.equal(engine.traceInfo().positions, conversation.length + tail.length, 'the trace spans the whole conversation');
});
