// Renders a model's chat template (GGUF tokenizer.chat_template, Jinja) for a conversation, with
// @huggingface/jinja, the engine transformers.js uses. Plain JavaScript (typed by chat-template.d.ts) so that
// the same module runs in the page's Worker and under Node in tests/wasm/chat-render.test.mjs.
import { Template } from '@huggingface/jinja';

/** A template that cannot be read or rendered; `stage` says which. */
export class ChatTemplateError extends Error {
  constructor(stage, cause) {
    const what = cause instanceof Error ? cause.message : String(cause);
    super(stage === 'parse' ? `The model's chat template could not be read: ${what}` : `The model's chat template failed to render this conversation: ${what}`);
    this.name = 'ChatTemplateError';
    this.stage = stage;
  }
}

/** Parses a template once; render() then fills it for each turn. */
export function compileChatTemplate(source) {
  try {
    return new Template(source);
  } catch (error) {
    throw new ChatTemplateError('parse', error);
  }
}

/**
 * The text of `messages` ([{role, content}]) as the model was trained to read it, ending with the opening of
 * the assistant's turn when `addGenerationPrompt`. The special tokens' spellings are the vocabulary's own
 * (bos_token, eos_token), as transformers passes them. `dateString` fixes the date that templates such as
 * Llama 3's print (otherwise today's, through the engine's strftime_now); no tools are given.
 */
export function renderChat(template, messages, { bosToken = '', eosToken = '', addGenerationPrompt = true, dateString } = {}) {
  const compiled = typeof template === 'string' ? compileChatTemplate(template) : template;
  try {
    return compiled.render({
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      bos_token: bosToken,
      eos_token: eosToken,
      add_generation_prompt: addGenerationPrompt,
      ...(dateString === undefined ? {} : { date_string: dateString }),
    });
  } catch (error) {
    throw new ChatTemplateError('render', error);
  }
}
