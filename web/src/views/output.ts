// The streaming output: the prompt, then each generated token as its own span, decoded with a streaming
// UTF-8 decoder (a token may carry only part of a character). Live statistics, timed as the CLI does: the
// prompt's speed up to the first new token, and the generation speed from the first new token on (so a
// long prompt does not make generation look slow).
// Clicking a generated token selects it (the next-token panel then shows the distribution it came from).
import type { DoneEvent, StartedEvent, TokenEvent } from '../client';
import { el, hexBytes, tokenLabel } from '../ui/text';
import { hideTip, showTip } from '../ui/tooltip';

/** Why the generation ended (the engine's stop reason), in words. */
const REASONS: Record<DoneEvent['reason'], string> = {
  'end-of-text': 'the model ended the text',
  'context-full': 'the context is full',
  length: 'reached max tokens',
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
  private firstTokenAt: number | null = null;
  private endedAt: number | null = null;
  private promptTokens = 0;
  private count = 0;
  private engineMs = 0; // engine time of the steps after the first (the first one also reads the prompt)
  private lastStats = 0;
  private selected = -1;
  private tabStop = 0; // the one token Tab lands on (roving tabindex): the selected one, else the first
  private resumed = false; // the run was continued by Step (resume()): its speed is the engine's
  private threads: StartedEvent['threads'] | null = null; // what the engine's rule chose for this run, and why
  private threadsInUse = 0; // what the newest token's pass ran on
  onSelect: (index: number, reveal: boolean) => void = () => {};

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
    this.promptTokens = 0;
    this.firstTokenAt = null;
    this.endedAt = null;
    this.selected = -1;
    this.tabStop = 0;
    this.resumed = false;
    this.startedAt = performance.now();
    this.root.replaceChildren(el('span', 'prompt-text', prompt), this.caret);
    this.root.classList.add('running');
    this.meta.textContent = 'generating…';
    this.renderStats(true);
  }

  /**
   * A Step after a generation: the text shown goes on, the prompt stays the prompt and the generated tokens
   * stay generated; the new token is timed on its own (the statistics then count every token generated).
   */
  resume() {
    this.resumed = true;
    this.endedAt = null;
    this.root.append(this.caret);
    this.root.classList.add('running');
    this.meta.textContent = 'stepping…';
  }

  /** The prompt's length in tokens, once the worker has tokenized it, and the threads the engine chose. */
  started(promptTokens: number, threads: StartedEvent['threads']) {
    this.promptTokens = promptTokens;
    this.threads = threads;
    this.threadsInUse = 0;
  }

  token(event: TokenEvent) {
    this.count = event.index + 1;
    this.threadsInUse = event.threads;
    if (event.index === 0) this.firstTokenAt = performance.now();
    else this.engineMs += event.stepMs; // a Step's token too: its step reads one token, as a generation's do
    // An end-of-text token adds no text: it is shown by its piece (</s>), marked as such.
    const endOfText = event.reason === 'end-of-text';
    const text = endOfText ? '' : this.decoder.decode(event.bytes, { stream: true });
    this.generatedText += text;
    const span = el('span', endOfText ? 'tok end-token' : 'tok', endOfText ? tokenLabel(event.piece) : text);
    if (event.index % 2 === 1) span.classList.add('odd');
    span.dataset.index = String(event.index);
    span.dataset.id = String(event.id);
    span.addEventListener('click', () => this.select(event.index));
    // A button for the keyboard and screen readers too: selecting a token selects its position everywhere.
    // One tab stop for the whole text (200 tokens would be 200 Tabs): ←/→, Home and End move between tokens.
    span.tabIndex = event.index === this.tabStop ? 0 : -1;
    span.setAttribute('role', 'button');
    span.setAttribute('aria-pressed', 'false');
    span.setAttribute('aria-label', `generated token ${event.index + 1}: ${tokenLabel(event.piece)}`);
    span.addEventListener('keydown', (e) => {
      const move = { ArrowLeft: event.index - 1, ArrowRight: event.index + 1, Home: 0, End: this.spans.length - 1 }[e.key];
      if (move !== undefined) {
        e.preventDefault();
        this.focusToken(move);
        this.select(Math.max(0, Math.min(move, this.spans.length - 1)), false); // the shared step follows the keyboard
        return;
      }
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      this.select(event.index);
    });
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
    // A Step ends at its one token ('length'): it says which token it added, not that a limit was reached.
    this.meta.textContent = this.resumed && done.reason === 'length' ? `stepped: generated token ${done.count}` : REASONS[done.reason];
    this.endedAt = performance.now();
    this.renderStats(true, done.elapsedMs);
  }

  /** Selects generated token `index`; `reveal`: on a phone, scroll to the distribution it came from (not while arrowing). */
  select(index: number, reveal = true) {
    this.mark(index);
    this.onSelect(index, reveal);
  }

  /** Shows generated token `index` as the selected one (-1: none), without telling onSelect. */
  mark(index: number) {
    this.spans[this.selected]?.classList.remove('selected');
    this.spans[this.selected]?.setAttribute('aria-pressed', 'false');
    this.selected = index;
    this.spans[index]?.classList.add('selected');
    this.spans[index]?.setAttribute('aria-pressed', 'true');
    if (index >= 0) this.moveTabStop(index);
  }

  private moveTabStop(index: number) {
    if (!this.spans[index]) return;
    if (this.spans[this.tabStop]) this.spans[this.tabStop].tabIndex = -1;
    this.tabStop = index;
    this.spans[index].tabIndex = 0;
  }

  private focusToken(index: number) {
    const clamped = Math.max(0, Math.min(index, this.spans.length - 1));
    this.moveTabStop(clamped);
    this.spans[clamped]?.focus();
  }

  get text() {
    return this.promptText + this.generatedText;
  }

  get generated() {
    return this.generatedText;
  }

  /**
   * The threads in use and why, in the engine's words (its rule: glassbox/thread_choice.hpp): the count the
   * newest token ran on (before the first, what each token will take), and the reason for generation's count;
   * the prompt's choice and the full reason in the tooltip.
   */
  private threadStats(threads: NonNullable<OutputView['threads']>) {
    const inUse = this.threadsInUse || threads.generation.threads;
    const node = el('span', 'stat');
    node.id = 'stat-threads';
    node.title = `Generation: ${threads.generation.why}. Prompt: ${threads.prompt.why}.`;
    node.append(el('strong', '', String(inUse)), document.createTextNode(inUse === 1 ? ' thread' : ' threads'));
    // The reason's plain part; its figures stay in the tooltip.
    const why = el('span', 'stat threads-why', threads.generation.why.replace(/ \(.*\)$/, ''));
    why.id = 'stat-threads-why';
    why.title = node.title;
    return [node, why];
  }

  private renderStats(force: boolean, elapsedMs?: number) {
    const now = performance.now();
    if (!force && now - this.lastStats < 100) return;
    this.lastStats = now;
    const seconds = (elapsedMs ?? now - this.startedAt) / 1000;
    const stat = (value: string, label: string, id: string, title: string) => {
      const node = el('span', 'stat');
      node.id = id;
      node.title = title;
      node.append(el('strong', '', value), document.createTextNode(` ${label}`));
      return node;
    };
    const nodes = [stat(String(this.count), this.count === 1 ? 'token' : 'tokens', 'stat-count', 'Tokens generated so far.')];
    // Generation speed: the tokens after the first, over the time since the first arrived.
    const first = this.firstTokenAt;
    const generationSeconds = first === null ? 0 : ((this.endedAt ?? now) - first) / 1000;
    // After a Step the wall clock spans the pause between steps: the engine's own time per token is the speed.
    const generationRate = this.resumed
      ? this.count > 1 && this.engineMs > 0 ? (this.count - 1) / (this.engineMs / 1000) : null
      : this.count > 1 && generationSeconds > 0 ? (this.count - 1) / generationSeconds : null;
    nodes.push(
      stat(
        generationRate === null ? '—' : rate(generationRate),
        'tokens/s',
        'stat-rate',
        this.resumed
          ? 'Generation speed after Step: tokens per second of the engine\'s own time (the pauses between steps are not counted).'
          : 'Generation speed: new tokens per second, counted from the first new token (reading the prompt is timed apart).',
      ),
    );
    // A prompt of one token (the empty prompt's BOS) says nothing about prompt speed.
    if (first !== null && this.promptTokens > 1 && first > this.startedAt) {
      const promptRate = this.promptTokens / ((first - this.startedAt) / 1000);
      nodes.push(
        stat(
          rate(promptRate),
          'tokens/s prompt',
          'stat-prompt-rate',
          `Prompt speed: the prompt's ${this.promptTokens} tokens per second, read up to the first new token.`,
        ),
      );
    }
    nodes.push(stat(seconds.toFixed(2), 's', 'stat-time', 'Time since Generate was pressed.'));
    if (this.threads) nodes.push(...this.threadStats(this.threads));
    if (this.count > 1) {
      nodes.push(
        stat(
          (this.engineMs / (this.count - 1)).toFixed(2),
          'ms/token in the engine',
          'stat-engine',
          'Time the worker spent in the forward pass and sampling, per token after the first; the rest is the page drawing.',
        ),
      );
    }
    this.stats.replaceChildren(...nodes);
  }
}

const rate = (perSecond: number) => (perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(1));
