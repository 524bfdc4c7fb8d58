// The chat side of the worker: a model's chat template, rendered for a conversation and tokenized with its
// special tokens, then handed to the engine as one prompt that extends the conversation's KV cache where it
// can (GlassboxEngine.startTokens: the core's Generator::extend decides what is kept).
import type { GlassboxEngine } from '@glassbox/engine';
import type { ChatStarted, ChatSupport } from '../protocol-chat';
import { type ChatMessage, ChatTemplateError, type CompiledTemplate, compileChatTemplate, renderChat } from './chat-template.js';
import { PlainError } from './explain';

let compiled: { source: string; template: CompiledTemplate } | null = null;

/** The loaded model's chat template and special tokens, or null when it has no template. */
export function chatSupport(e: GlassboxEngine): ChatSupport | null {
  const info = e.chatInfo();
  if (!info.template) return null;
  return { template: info.template, specialIds: Array.from(info.specialIds), endIds: Array.from(info.endIds) };
}

const decoder = new TextDecoder();
const spelling = (e: GlassboxEngine, id: number) => (id >= 0 ? decoder.decode(e.piece(id)) : '');

/**
 * Renders `messages` with the model's template (the assistant's turn opened), tokenizes the text with its
 * special tokens, and starts generating from it. BOS is put first where the vocabulary asks for one and the
 * template did not write it already (Gemma's and Llama 3's templates do; a second BOS would be a token the
 * model never saw there). Errors are in plain words, a template's own included.
 */
export function startChat(e: GlassboxEngine, messages: ChatMessage[], maxTokens: number): { ids: number[]; started: ChatStarted } {
  const info = e.chatInfo();
  if (!info.template) throw new PlainError('This model has no chat template', 'Its file carries no tokenizer.chat_template: write a plain prompt instead.');
  let rendered: string;
  try {
    if (compiled?.source !== info.template) compiled = { source: info.template, template: compileChatTemplate(info.template) };
    rendered = renderChat(compiled.template, messages, { bosToken: spelling(e, info.bosId), eosToken: spelling(e, info.eosId) });
  } catch (error) {
    if (error instanceof ChatTemplateError) throw new PlainError(error.stage === 'parse' ? 'The chat template could not be read' : 'The chat template failed', error.message);
    throw error;
  }
  const ids = e.tokenize(rendered, false, { parseSpecial: true }).map((t) => t.id);
  if (info.addsBos && info.bosId >= 0 && ids[0] !== info.bosId) ids.unshift(info.bosId);
  const { kept } = e.startTokens(ids, { maxTokens });
  return { ids, started: { rendered, kept } };
}
