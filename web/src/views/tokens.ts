// The tokenization view: the prompt as the model sees it, one coloured chip per token with its id.
// Hovering a chip shows the token's vocabulary bytes and the byte span of the input it covers.
import type { TokenSpan } from '../protocol';
import { CHIP_BORDERS, CHIP_COLORS } from '../ui/colors';
import { el, hexBytes, pieceText, tokenLabel } from '../ui/text';
import { hideTip, showTip, type TipRow } from '../ui/tooltip';

const encoder = new TextEncoder();

export class TokensView {
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

  show(text: string, tokens: TokenSpan[]) {
    const input = encoder.encode(text);
    const chips = tokens.map((token, index) => this.chip(token, index, input));
    this.root.replaceChildren(...chips);
    const characters = [...text].length;
    const words = tokens.length === 1 ? 'token' : 'tokens';
    this.summary.textContent = `${tokens.length} ${words} · ${characters} characters · ${input.length} bytes`;
  }

  private chip(token: TokenSpan, index: number, input: Uint8Array): HTMLElement {
    const chip = el('span', 'chip');
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
    const rows: TipRow[] = [
      ['id', String(token.id), true],
      ['piece bytes', hexBytes(token.piece) || '(none)', true],
    ];
    if (token.begin === token.end) {
      rows.push(['byte span', 'none: added by the tokenizer', false]);
    } else {
      const text = pieceText(covered);
      rows.push(['byte span', `${token.begin}–${token.end} (${token.end - token.begin} bytes)`, true]);
      rows.push(['input bytes', hexBytes(covered), true]);
      if (text !== null) rows.push(['input text', JSON.stringify(text), true]);
      else rows.push(['input text', 'part of a UTF-8 character (byte fallback)', false]);
    }
    showTip(event.clientX, event.clientY, `token ${index} · ${tokenLabel(token.piece)}`, rows);
  }
}
