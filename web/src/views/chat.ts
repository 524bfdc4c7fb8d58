// The chat: for a model whose file carries a chat template, a conversation instead of a bare prompt. Each
// message the user sends is added to the conversation, which the worker renders with the model's template,
// tokenizes with its special tokens and continues (worker/chat.ts); the reply streams in until the model ends
// its turn. The card shows the conversation twice: as messages, and as the model reads it, token by token,
// with the special tokens (<|im_start|>, <end_of_turn>, ...) as chips. It builds its own card (placed above the
// prompt) and styles (chat.css), so the page's shared files change little.
import type { DoneEvent, StartedEvent, TokenEvent } from '../client';
import type { ErrorReport, LoadResult } from '../protocol';
import type { ChatMessage, ChatSupport } from '../protocol-chat';
import { el, tokenLabel } from '../ui/text';
import './chat.css';

export interface ChatState {
  available: boolean; // the loaded model has a chat template
  messages: ChatMessage[];
  tokenIds: number[]; // the whole conversation as the model read it, replies included
  chips: number; // special tokens shown as chips
  lastKept: number; // positions the last turn kept from the one before
  rendered: string; // the last rendering of the template
}

export class ChatView {
  readonly card = el('section', 'card chat-card');
  private readonly log = el('div', 'chat-log');
  private readonly strip = el('div', 'tokens chat-tokens');
  private readonly input = el('textarea', 'chat-input');
  private readonly send = el('button', 'button primary', 'Send');
  private readonly reset = el('button', 'button', 'New chat');
  private readonly error = el('div', 'notice error');
  private readonly meta = el('span', 'meta');
  private support: ChatSupport | null = null;
  private special = new Set<number>();
  private reply: HTMLElement | null = null;
  private replyDecoder = new TextDecoder();
  private replyText = '';
  private busy = false;
  readonly state: ChatState = { available: false, messages: [], tokenIds: [], chips: 0, lastKept: 0, rendered: '' };
  /** Asks the page to generate the assistant's reply to `messages`; false when it cannot start now. */
  onSend: (messages: ChatMessage[]) => boolean = () => false;

  constructor(before: Element) {
    this.card.id = 'chat-card';
    this.card.setAttribute('aria-labelledby', 'chat-heading');
    this.card.hidden = true;
    const head = el('div', 'card-head');
    const heading = el('h2', undefined, 'Chat');
    heading.id = 'chat-heading';
    head.append(heading, this.meta);
    this.log.id = 'chat-log';
    this.log.setAttribute('role', 'log');
    this.log.setAttribute('aria-label', 'The conversation');
    this.strip.id = 'chat-tokens';
    this.strip.setAttribute('aria-label', 'The conversation as the model reads it, token by token; special tokens are marked');
    this.input.id = 'chat-input';
    this.input.rows = 2;
    this.input.setAttribute('aria-label', 'Your message');
    this.input.placeholder = 'Write a message. Enter sends it, Shift+Enter starts a new line.';
    this.send.id = 'chat-send';
    this.send.type = 'button';
    this.reset.id = 'chat-new';
    this.reset.type = 'button';
    this.error.id = 'chat-error';
    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;
    const hint = el('p', 'hint', 'The model\u2019s chat template turns the conversation into the text below; the whole conversation stays in the model\u2019s memory, so the attention views cover all of it.');
    const actions = el('div', 'actions');
    actions.append(this.send, this.reset);
    this.card.append(head, this.log, this.input, actions, this.error, hint, this.strip);
    before.before(this.card);
    // For the browser tests (tests/browser/chat.test.mjs), beside the page's window.__glassbox.
    (globalThis as unknown as { __glassboxChat?: ChatState }).__glassboxChat = this.state;

    this.send.addEventListener('click', () => this.submit());
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
    this.reset.addEventListener('click', () => {
      this.clear();
      this.input.focus();
    });
  }

  /** A new model: the card shows for a model with a chat template, and the conversation starts over. */
  modelLoaded(result: LoadResult) {
    this.support = result.chat;
    this.special = new Set(result.chat?.specialIds ?? []);
    this.state.available = result.chat !== null;
    this.card.hidden = result.chat === null;
    this.meta.textContent = result.chat ? `${result.label} has a chat template` : '';
    this.clear();
  }

  setBusy(busy: boolean) {
    this.busy = busy;
    this.send.disabled = busy || !this.support;
    this.reset.disabled = busy;
  }

  private clear() {
    this.state.messages = [];
    this.state.tokenIds = [];
    this.state.chips = 0;
    this.state.rendered = '';
    this.log.replaceChildren();
    this.strip.replaceChildren();
    this.showError(null);
  }

  private submit() {
    const text = this.input.value.trim();
    if (!text || this.busy || !this.support) return;
    const messages: ChatMessage[] = [...this.state.messages, { role: 'user', content: text }];
    this.showError(null);
    if (!this.onSend(messages)) return;
    this.state.messages = messages;
    this.input.value = '';
    this.addMessage('user', text);
    this.reply = this.addMessage('assistant', '');
    this.reply.classList.add('pending');
    this.replyDecoder = new TextDecoder();
    this.replyText = '';
  }

  private addMessage(role: ChatMessage['role'], text: string): HTMLElement {
    const item = el('div', `chat-message ${role}`);
    item.append(el('span', 'chat-role', role === 'user' ? 'You' : 'Model'), el('span', 'chat-text', text));
    this.log.append(item);
    this.log.scrollTop = this.log.scrollHeight;
    return item;
  }

  /** The turn's prompt: the conversation as rendered and tokenized, drawn as the model reads it. */
  started(event: StartedEvent) {
    this.state.tokenIds = [...event.promptIds];
    this.state.lastKept = event.chat?.kept ?? 0;
    this.state.rendered = event.chat?.rendered ?? '';
    this.strip.replaceChildren();
    this.state.chips = 0;
    event.promptIds.forEach((id, i) => this.addToken(id, event.promptPieces[i]));
  }

  token(event: TokenEvent) {
    this.state.tokenIds.push(event.id);
    this.addToken(event.id, event.piece);
    if (!this.reply) return;
    this.replyText += this.replyDecoder.decode(event.bytes, { stream: !event.end });
    this.reply.querySelector('.chat-text')!.textContent = this.replyText;
  }

  done(event: DoneEvent) {
    const reply = this.reply;
    this.reply = null;
    if (!reply) return;
    reply.classList.remove('pending');
    if (event.reason === 'error' && event.count === 0) {
      // The turn never started (a template that failed, a conversation too long): the message goes back to
      // the box, to be changed or sent again.
      reply.remove();
      this.log.lastElementChild?.remove();
      const last = this.state.messages.pop();
      if (last && !this.input.value) this.input.value = last.content;
      this.showError(event.error ?? { title: 'The reply could not start' });
      return;
    }
    this.replyText += this.replyDecoder.decode();
    this.state.messages = [...this.state.messages, { role: 'assistant', content: this.replyText }];
    if (event.reason !== 'end-of-text') reply.append(el('span', 'chat-cut', event.reason === 'stopped' ? ' (stopped)' : ` (cut short: ${event.reason})`));
    if (event.error) this.showError(event.error);
  }

  focus() {
    this.input.focus();
  }

  private addToken(id: number, piece: Uint8Array) {
    // Chips as in the prompt's token view (its .chip styles), the special ones set apart (chat.css).
    const special = this.special.has(id);
    const chip = el('span', special ? 'chip chat-special' : 'chip chat-token');
    chip.append(el('span', 'chip-text', tokenLabel(piece)), el('span', 'chip-id', String(id)));
    chip.title = special ? `special token ${id}: a marker of the chat format, not text` : `token ${id}`;
    if (special) this.state.chips += 1;
    this.strip.append(chip);
  }

  private showError(report: ErrorReport | null) {
    this.error.hidden = !report;
    this.error.replaceChildren();
    if (!report) return;
    this.error.append(el('strong', 'notice-title', report.title));
    if (report.detail) this.error.append(el('span', 'notice-detail', report.detail));
    if (report.advice) this.error.append(el('span', 'notice-advice', report.advice));
  }
}
