// What the page's chat (views/chat.ts, worker/chat.ts) adds to the messages between page and worker.
import type { ChatMessage } from './worker/chat-template.js';

export type { ChatMessage };

/** A loaded model's chat side; null on LoadResult when the model has no chat template. */
export interface ChatSupport {
  template: string; // the Jinja source (GGUF tokenizer.chat_template)
  specialIds: number[]; // tokens read by spelling in a rendered chat: shown as chips
  endIds: number[]; // tokens that end a reply
}

/** The generate request's chat form: the conversation so far, ending with the user's new message. */
export interface ChatRequest {
  messages: ChatMessage[];
}

/** What the worker says when a chat turn starts: the rendered text, and the positions kept from before. */
export interface ChatStarted {
  rendered: string;
  kept: number; // positions of the conversation the session had already run (0: it ran them all again)
}
