// The page's chat rendering (web/src/worker/chat-template.js, @huggingface/jinja) with the templates of five
// real instruct models (tests/data/chat-templates): a fixed two-turn conversation renders to the text each
// model was trained on, written out by hand from the models' documented formats; failures name themselves.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ChatTemplateError, renderChat } from '../../web/src/worker/chat-template.js';

const templates = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'data', 'chat-templates');
const read = (file) => fs.readFileSync(path.join(templates, file), 'utf8');

const conversation = [
  { role: 'user', content: 'Hi there' },
  { role: 'assistant', content: 'Hello!' },
  { role: 'user', content: 'How are you?' },
];
const withSystem = [{ role: 'system', content: 'Be brief.' }, ...conversation];

// Each model's turn format, applied by hand.
const chatml = (system, turns) =>
  (system === null ? '' : `<|im_start|>system\n${system}<|im_end|>\n`) + turns.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';

const cases = [
  {
    file: 'smollm2-instruct.jinja',
    options: { bosToken: '<|im_start|>', eosToken: '<|im_end|>' },
    expected: chatml('You are a helpful AI assistant named SmolLM, trained by Hugging Face', conversation),
    expectedWithSystem: chatml('Be brief.', conversation),
  },
  {
    file: 'qwen2.5-instruct.jinja',
    options: { eosToken: '<|im_end|>' },
    expected: chatml('You are Qwen, created by Alibaba Cloud. You are a helpful assistant.', conversation),
    expectedWithSystem: chatml('Be brief.', conversation),
  },
  {
    file: 'qwen3.jinja',
    options: { eosToken: '<|im_end|>' },
    expected: chatml(null, conversation),
    expectedWithSystem: chatml('Be brief.', conversation),
  },
  {
    file: 'gemma-3-it.jinja',
    options: { bosToken: '<bos>', eosToken: '<eos>' },
    expected:
      '<bos><start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n' +
      '<start_of_turn>user\nHow are you?<end_of_turn>\n<start_of_turn>model\n',
    // Gemma has no system turn: the system text opens the first user turn.
    expectedWithSystem:
      '<bos><start_of_turn>user\nBe brief.\n\nHi there<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n' +
      '<start_of_turn>user\nHow are you?<end_of_turn>\n<start_of_turn>model\n',
  },
  {
    file: 'llama-3.2-instruct.jinja',
    options: { bosToken: '<|begin_of_text|>', eosToken: '<|eot_id|>', dateString: '24 Nov 2026' },
    expected:
      '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 24 Nov 2026\n\n<|eot_id|>' +
      '<|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>' +
      '<|start_header_id|>user<|end_header_id|>\n\nHow are you?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    expectedWithSystem:
      '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 24 Nov 2026\n\nBe brief.<|eot_id|>' +
      '<|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>' +
      '<|start_header_id|>user<|end_header_id|>\n\nHow are you?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
  },
];

for (const c of cases) {
  test(`${c.file}: a two-turn conversation renders as the model reads it`, () => {
    const template = read(c.file);
    assert.equal(renderChat(template, conversation, c.options), c.expected);
    assert.equal(renderChat(template, withSystem, c.options), c.expectedWithSystem);
  });

  test(`${c.file}: the next turn's rendering extends this one (the page keeps the KV cache)`, () => {
    const template = read(c.file);
    const before = renderChat(template, conversation.slice(0, 1), c.options);
    const after = renderChat(template, conversation, c.options);
    // Up to the generation prompt, turn one's text stands unchanged at the start of turn two's.
    assert.ok(after.startsWith(before), `${JSON.stringify(before)} is not a prefix of ${JSON.stringify(after)}`);
  });
}

test('a template that fails names the failure in plain words', () => {
  // Gemma's template refuses two user turns in a row, with its own message.
  assert.throws(
    () => renderChat(read('gemma-3-it.jinja'), [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]),
    (error) => error instanceof ChatTemplateError && error.stage === 'render' && /failed to render.*Conversation roles must alternate/.test(error.message),
  );
  assert.throws(
    () => renderChat('{% for m in messages %}{{ m.content }}', conversation),
    (error) => error instanceof ChatTemplateError && error.stage === 'parse' && /could not be read/.test(error.message),
  );
});
