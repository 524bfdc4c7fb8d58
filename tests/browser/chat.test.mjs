// Browser tests of the chat (issue 12, part 6): random-weight models that carry the chat templates of real
// instruct models (tests/reference/chat_models.py writes them into test-output/chat-models/) are dropped on
// the page; the chat card renders their templates with @huggingface/jinja, tokenizes the rendering with its
// special tokens, shows those as chips, generates until the model ends its turn, keeps the conversation in
// the session across turns, and the attention views span the whole conversation.
// Run: npm run build && node --test --test-concurrency=1 tests/browser/chat.test.mjs
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { browserSuite, dropAndSettle, fileOf, outputDir, repo, screenshot, setControls } from './harness.mjs';

const suite = browserSuite();
const { withPage } = suite;
const modelsDir = path.join(outputDir, 'chat-models');
const models = {};

before(() => {
  const lines = execFileSync('/usr/bin/python3', [path.join(repo, 'tests', 'reference', 'chat_models.py'), modelsDir], { encoding: 'utf8' });
  for (const line of lines.trim().split('\n')) {
    const m = JSON.parse(line);
    models[m.name] = m;
  }
});

const chatState = (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.__glassboxChat)));

async function loadChatModel(page, name) {
  const file = models[name];
  const result = await dropAndSettle(page, [fileOf(path.basename(file.path), fs.readFileSync(file.path))]);
  assert.equal(result, 'loaded', `${name} loads (${await page.textContent('#model-error').catch(() => '')})`);
  await page.waitForSelector('#chat-card:not([hidden])');
  await setControls(page, { temperature: 0 }); // greedy: the replies chat_models.py's weights were tuned for
  return file;
}

/** Types a message and sends it with Enter, as a keyboard user does; waits for the reply to end. */
async function say(page, text) {
  const before = await page.evaluate(() => window.__glassbox.generations);
  await page.focus('#chat-input');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => window.__glassbox.generations > n, before);
  return page.evaluate(() => window.__glassbox.whenIdle());
}

test('1. a ChatML model (Qwen2.5\'s template): two turns, chips, end of turn, one session for the conversation', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    assert.equal(await page.isHidden('#chat-card'), true, 'stories260K has no chat template: no chat card');
    const model = await loadChatModel(page, 'qwen2.5');
    const imStart = model.specials['<|im_start|>'];
    const imEnd = model.specials['<|im_end|>'];

    const first = await say(page, 'Hi there');
    assert.equal(first.error, null);
    assert.equal(first.reason, 'end-of-text', 'the reply ends by itself');
    assert.equal(first.ids.at(-1), imEnd, 'at the end of its turn, <|im_end|> (named by its spelling alone: the file has no eot id)');
    assert.ok(first.ids.length > 1, 'after saying something');
    let state = await chatState(page);
    assert.ok(state.rendered.startsWith('<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>'), state.rendered);
    assert.ok(state.rendered.endsWith('<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n'), state.rendered);
    // The rendering's markers are single tokens, not their spelling's bytes.
    assert.equal(first.promptIds[0], imStart);
    assert.equal(first.promptIds.filter((id) => id === imStart).length, 3, 'system, user and assistant turns open with <|im_start|>');
    // ... and shown as chips: 3 + 2 in the prompt, the reply's <|im_end|>.
    assert.equal(state.chips, 6);
    assert.equal(await page.locator('#chat-tokens .chip.chat-special').count(), 6);
    assert.equal(await page.locator('#chat-log .chat-message').count(), 2);
    await screenshot(page, 'chat-01-first-turn');

    const second = await say(page, 'And you?');
    assert.equal(second.reason, 'end-of-text');
    state = await chatState(page);
    assert.equal(state.messages.length, 4);
    assert.deepEqual(state.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    // Turn two extends turn one: the session kept every position it had run (the prompt and the reply but its
    // last token), and fed only the rest.
    const turnOne = [...first.promptIds, ...first.ids];
    assert.deepEqual(second.promptIds.slice(0, turnOne.length), turnOne);
    assert.equal(state.lastKept, turnOne.length - 1);
    // The attention views see the whole conversation, from its first token.
    const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
    assert.equal(trace.begin, 0);
    assert.equal(trace.total, second.promptIds.length + second.ids.length - 1);
    assert.equal(await page.locator('#chat-log .chat-message').count(), 4);
    await screenshot(page, 'chat-02-second-turn');
    await page.locator('#chat-card').screenshot({ path: path.join(outputDir, 'chat-03-card.png') });
    assert.deepEqual(errors, []);
  });
});

test('2. Gemma 3\'s template: BOS once, turns end at <end_of_turn>, keyboard only', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const model = await loadChatModel(page, 'gemma3');
    const reply = await say(page, 'Hello');
    assert.equal(reply.reason, 'end-of-text');
    assert.equal(reply.ids.at(-1), model.specials['<end_of_turn>'], 'the turn ends at <end_of_turn> (tokenizer.ggml.eot_token_id)');
    const bos = model.specials['<bos>'];
    assert.equal(reply.promptIds[0], bos);
    assert.notEqual(reply.promptIds[1], bos, 'the template writes BOS; the page does not add a second');
    const state = await chatState(page);
    assert.ok(state.rendered.endsWith('<start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n'), state.rendered);
    assert.equal(state.chips, 5, '<bos>, two <start_of_turn>, <end_of_turn>, and the reply\'s <end_of_turn>');
    // Focus is back in the message box for the next turn.
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-input');
    // New chat empties the conversation.
    await page.click('#chat-new');
    assert.equal((await chatState(page)).messages.length, 0);
    assert.deepEqual(errors, []);
  });
});

test('3. a template that fails says so in plain words, and the message goes back to the box', async (t) => {
  await withPage(t, async ({ page }) => {
    await loadChatModel(page, 'broken');
    const result = await say(page, 'Hello');
    assert.equal(result.reason, 'error');
    const error = await page.textContent('#chat-error');
    assert.match(error, /The chat template failed/);
    assert.match(error, /This template takes no user messages/, 'the template\'s own words');
    assert.equal(await page.isVisible('#chat-error'), true);
    assert.equal(await page.inputValue('#chat-input'), 'Hello', 'the message is back in the box, to be sent again');
    assert.equal((await chatState(page)).messages.length, 0);
    assert.equal(await page.locator('#chat-log .chat-message').count(), 0);
  });
});

test('4. Llama 3.2\'s template: ends at <|eot_id|>, and the other templates render and run a turn', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    for (const name of ['llama3.2', 'smollm2', 'qwen3']) {
      const model = await loadChatModel(page, name);
      const reply = await say(page, 'Hello');
      assert.equal(reply.error, null, `${name}: ${JSON.stringify(reply.error)}`);
      assert.equal(reply.reason, 'end-of-text', `${name} ends its turn`);
      assert.equal(reply.ids.at(-1), model.end, `${name} ends at its end of turn`);
      assert.ok((await chatState(page)).chips >= 3, `${name} shows chips`);
    }
    assert.deepEqual(errors, []);
  });
});
