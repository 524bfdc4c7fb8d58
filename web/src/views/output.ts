// The streaming output: the prompt, then each generated token as its own span, decoded with a streaming
// UTF-8 decoder (a token may carry only part of a character). Live statistics: tokens and tokens/s.
// Clicking a generated token selects it (the next-token panel then shows the distribution it came from).
import type { DoneEvent, TokenEvent } from '../client';
import { el, hexBytes, tokenLabel } from '../ui/text';
import { hideTip, showTip } from '../ui/tooltip';

const REASONS: Record<DoneEvent['reason'], string> = {
  length: 'reached max tokens',
  'end-token': 'the model ended the text',
  context: 'the context is full',
  stopped: 'stopped',
  error: 'stopped by an error',
};

export class OutputView {
  private decoder = new TextDecoder('utf-8');
  private spans: HTMLElement[] = [];
  private caret = el('span', 'caret');
  private promptText = '';
  private generatedText = '';
  private startedAt = 0;
  private count = 0;
  private engineMs = 0;
  private lastStats = 0;
  private selected = -1;
  onSelect: (index: number) => void = () => {};

  constructor(
    private readonly root: HTMLElement,
    private readonly meta: HTMLElement,
    private readonly stats: HTMLElement,
    boundaries: HTMLInputElement,
  ) {
    boundaries.addEventListener('change', () => this.root.classList.toggle('show-boundaries', boundaries.checked));
    this.empty();
  }

  empty() {
    this.root.replaceChildren(el('p', 'empty', 'Press Generate and the model continues your prompt here, token by token.'));
    this.meta.textContent = '';
    this.stats.replaceChildren();
  }

  begin(prompt: string) {
    this.decoder = new TextDecoder('utf-8');
    this.spans = [];
    this.promptText = prompt;
    this.generatedText = '';
    this.count = 0;
    this.engineMs = 0;
    this.selected = -1;
    this.startedAt = performance.now();
    this.root.replaceChildren(el('span', 'prompt-text', prompt), this.caret);
    this.root.classList.add('running');
    this.meta.textContent = 'generating…';
    this.renderStats(true);
  }

  token(event: TokenEvent) {
    this.count = event.index + 1;
    this.engineMs += event.stepMs;
    const text = event.end && event.bytes.length === 0 ? '' : this.decoder.decode(event.bytes, { stream: true });
    this.generatedText += text;
    const span = el('span', event.end && text === '' ? 'tok end-token' : 'tok', event.end && text === '' ? tokenLabel(event.piece) : text);
    if (event.index % 2 === 1) span.classList.add('odd');
    span.dataset.index = String(event.index);
    span.dataset.id = String(event.id);
    span.addEventListener('click', () => this.select(event.index));
    span.addEventListener('pointermove', (e) =>
      showTip(e.clientX, e.clientY, `generated token ${event.index + 1}`, [
        ['id', String(event.id), true],
        ['piece', tokenLabel(event.piece), true],
        ['text bytes', hexBytes(event.bytes) || '(none)', true],
        ['step', `${event.stepMs.toFixed(2)} ms`, true],
      ]),
    );
    span.addEventListener('pointerleave', hideTip);
    this.spans.push(span);
    this.caret.before(span);
    this.renderStats(false);
  }

  end(done: DoneEvent) {
    const rest = this.decoder.decode();
    if (rest && this.spans.length > 0) this.spans[this.spans.length - 1].textContent += rest;
    this.generatedText += rest;
    this.caret.remove();
    this.root.classList.remove('running');
    this.count = done.count;
    this.meta.textContent = REASONS[done.reason];
    this.renderStats(true, done.elapsedMs);
  }

  select(index: number) {
    this.spans[this.selected]?.classList.remove('selected');
    this.selected = index;
    this.spans[index]?.classList.add('selected');
    this.onSelect(index);
  }

  get text() {
    return this.promptText + this.generatedText;
  }

  get generated() {
    return this.generatedText;
  }

  private renderStats(force: boolean, elapsedMs?: number) {
    const now = performance.now();
    if (!force && now - this.lastStats < 100) return;
    this.lastStats = now;
    const seconds = (elapsedMs ?? now - this.startedAt) / 1000;
    const rate = seconds > 0 && this.count > 0 ? this.count / seconds : 0;
    const stat = (value: string, label: string, id: string) => {
      const node = el('span', 'stat');
      node.id = id;
      node.append(el('strong', '', value), document.createTextNode(` ${label}`));
      return node;
    };
    this.stats.replaceChildren(
      stat(String(this.count), this.count === 1 ? 'token' : 'tokens', 'stat-count'),
      stat(rate >= 100 ? rate.toFixed(0) : rate.toFixed(1), 'tokens/s', 'stat-rate'),
      stat(seconds.toFixed(2), 's', 'stat-time'),
    );
    if (this.count > 0) {
      const perToken = stat((this.engineMs / this.count).toFixed(2), 'ms/token in the engine', 'stat-engine');
      perToken.title = 'Time the worker spent in the forward pass and sampling, per token; the rest is the page drawing.';
      this.stats.append(perToken);
    }
  }
}
