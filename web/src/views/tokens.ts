// The tokenization view: the prompt as the model sees it, one coloured chip per token with its id.
// Hovering a chip shows the token's vocabulary bytes and the byte span of the input it covers. The count
// beside the heading warns when the prompt does not fit the model's context.
import type { TokenSpan } from '../protocol';
import { CHIP_BORDERS, CHIP_COLORS } from '../ui/colors';
import { countBytes, el, fallbackByte, hex, hexBytes, pieceText, tokenLabel } from '../ui/text';
import { hideTip, showTip, type TipRow } from '../ui/tooltip';

const encoder = new TextEncoder();

export class TokensView {
  private contextLength = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly summary: HTMLElement,
  ) {
    this.empty('Load a model to see how it splits your text into tokens.');
  }

  empty(message: string) {
    this.root.replaceChildren(el('p', 'empty', message));
    this.summary.textContent = '';
  }

  /** The loaded model's context length, for the count's warning (the engine itself refuses a prompt that does not fit). */
  setContextLength(tokens: number) {
    this.contextLength = tokens;
  }

  show(text: string, tokens: TokenSpan[]) {
    const input = encoder.encode(text);
    const chips = tokens.map((token, index) => this.chip(token, index, input));
    this.root.replaceChildren(...chips);
    const characters = [...text].length;
    const words = `${tokens.length} ${tokens.length === 1 ? 'token' : 'tokens'}`;
    const rest = ` · ${characters} characters · ${countBytes(input.length)}`;
    const context = this.contextLength;
    if (context > 0 && tokens.length >= context) {
      const over = tokens.length > context;
      const warning = el('span', 'meta-warning', `${words} — ${over ? 'over' : 'all of'} the ${context}-token context`);
      warning.title = over
        ? `The model reads at most ${context} tokens: shorten the prompt.`
        : `The prompt fills the model's ${context}-token context: only one token can follow it. Shorten the prompt to leave room.`;
      this.summary.replaceChildren(warning, rest);
    } else {
      this.summary.replaceChildren(words, rest);
    }
  }

  /** Called when a prompt token is clicked (or pressed with Enter or Space): its position. */
  onSelect: (position: number) => void = () => {};
  private selectedPosition = -1;

  /** Marks the chip at `position` as selected (-1: none). */
  mark(position: number) {
    this.selectedPosition = position;
    this.root.querySelectorAll<HTMLElement>('.chip').forEach((chip, index) => {
      chip.classList.toggle('selected', index === position);
      chip.setAttribute('aria-pressed', String(index === position));
    });
  }

  private chip(token: TokenSpan, index: number, input: Uint8Array): HTMLElement {
    // A button: selecting a prompt token selects its position in every view (main.ts: onSelect).
    const chip = el('button', 'chip');
    chip.type = 'button';
    chip.setAttribute('aria-pressed', String(index === this.selectedPosition));
    chip.setAttribute('aria-label', `prompt token ${tokenLabel(token.piece)} at position ${index}`);
    chip.addEventListener('click', () => this.onSelect(index));
    const color = index % CHIP_COLORS.length;
    chip.style.background = CHIP_COLORS[color];
    chip.style.borderColor = CHIP_BORDERS[color];
    chip.dataset.id = String(token.id);
    chip.dataset.index = String(index);
    chip.dataset.begin = String(token.begin);
    chip.dataset.end = String(token.end);
    const special = token.begin === token.end;
    if (special) chip.classList.add('special');
    chip.append(el('span', 'chip-text', tokenLabel(token.piece)), el('span', 'chip-id', String(token.id)));
    chip.addEventListener('pointerenter', (event) => this.tip(event, token, index, input));
    chip.addEventListener('pointermove', (event) => this.tip(event, token, index, input));
    chip.addEventListener('pointerleave', hideTip);
    return chip;
  }

  private tip(event: PointerEvent, token: TokenSpan, index: number, input: Uint8Array) {
    const covered = input.subarray(token.begin, token.end);
    const byte = fallbackByte(token.piece);
    const rows: TipRow[] = [
      ['id', String(token.id), true],
      byte === null ? ['piece bytes', hexBytes(token.piece) || '(none)', true] : ['piece bytes', `${hex(byte)} (a byte-fallback token)`, true],
    ];
    if (token.begin === token.end) {
      rows.push(['byte span', 'none: added by the tokenizer', false]);
    } else {
      const text = pieceText(covered);
      rows.push(['byte span', `${token.begin}–${token.end} (${countBytes(token.end - token.begin)})`, true]);
      rows.push(['input bytes', hexBytes(covered), true]);
      if (text !== null) rows.push(['input text', JSON.stringify(text), true]);
      else rows.push(['input text', 'part of a UTF-8 character (byte fallback)', false]);
    }
    showTip(event.clientX, event.clientY, `token ${index} · ${tokenLabel(token.piece)}`, rows);
  }
}
