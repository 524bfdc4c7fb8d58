// The logit lens: what the residual stream would predict for the next token between the layers, at each
// position of a window of recent positions: the stream taken through the model's final norm and unembedding.
// Row k is the stream entering layer k: row 0 the token embedding alone, row k the stream after layers 0..k-1
// (labelled "after layer k-1", layers counted from 0 as in every view), the last row, after the last layer,
// the model's own prediction. Shading: the top token's
// probability. Clicking a column selects that position everywhere; the columns' buttons are one tab stop
// (roving tabindex, as every grid of the page): ←/→, Home and End move the selection along them.
import type { LensWindow } from '../protocol-step-inspector';
import { cssColor, inkOn } from '../ui/colors';
import { el, tokenLabel } from '../ui/text';

export class LogitLensView {
  onSelect: (position: number) => void = () => {};
  private lens: LensWindow | null = null;

  constructor(private readonly root: HTMLElement) {
    this.empty('Generate some text: each layer\'s guess for the next token shows here.');
  }

  empty(message: string) {
    this.lens = null;
    this.root.replaceChildren(el('p', 'empty', message));
  }

  show(lens: LensWindow, selected: number) {
    this.lens = lens;
    const table = el('table', 'lens-table');
    table.dataset.testid = 'logit-lens';
    const head = el('tr');
    head.append(el('th', 'lens-corner', 'layer \\ token'));
    for (let i = 0; i < lens.size; ++i) {
      const position = lens.begin + i;
      const th = el('th', 'lens-input');
      const button = el('button', 'lens-pick', tokenLabel(lens.inputPieces[i]));
      button.type = 'button';
      button.dataset.position = String(position);
      button.setAttribute('aria-label', `token ${tokenLabel(lens.inputPieces[i])} at position ${position}`);
      button.tabIndex = -1; // mark() gives the selected column the one tab stop
      button.addEventListener('click', () => this.onSelect(position));
      button.addEventListener('keydown', (event) => {
        const last = lens.begin + lens.size - 1;
        const to = { ArrowLeft: position - 1, ArrowRight: position + 1, Home: lens.begin, End: last }[event.key];
        if (to === undefined) return;
        event.preventDefault();
        this.onSelect(Math.max(lens.begin, Math.min(to, last)));
      });
      th.append(button);
      head.append(th);
    }
    table.append(head);
    for (let layer = lens.layers - 1; layer >= 0; --layer) {
      const tr = el('tr');
      tr.dataset.layer = String(layer);
      const name = layer === 0 ? 'embedding' : `after layer ${layer - 1}` + (layer === lens.layers - 1 ? ' · output' : '');
      tr.append(el('th', 'lens-layer', name));
      for (let i = 0; i < lens.size; ++i) {
        const at = layer * lens.size + i;
        const p = lens.probabilities[at];
        const td = el('td', 'lens-cell', tokenLabel(lens.pieces[at]));
        td.dataset.position = String(lens.begin + i);
        td.dataset.id = String(lens.ids[at]);
        td.style.background = cssColor(p, 'linear');
        td.style.color = inkOn(p, 'linear');
        td.title = `${layer === 0 ? 'the embedding' : `after layer ${layer - 1}`} at position ${lens.begin + i}: id ${lens.ids[at]}, p = ${(p * 100).toFixed(1)}%`;
        tr.append(td);
      }
      table.append(tr);
    }
    const note = el(
      'p',
      'note',
      `Positions ${lens.begin}–${lens.begin + lens.size - 1}. Each cell: the token the residual stream predicts next at that point, shaded by its probability; the bottom row is the embedding alone, each row above it the stream after one more layer (layers count from 0), the top row the model's prediction.`,
    );
    const scroller = el('div', 'lens-scroll');
    scroller.append(table);
    const hadFocus = this.root.contains(document.activeElement); // a new window read while arrowing: the keyboard stays
    this.root.replaceChildren(scroller, note);
    this.mark(selected);
    if (hadFocus) this.root.querySelector<HTMLElement>('.lens-pick[tabindex="0"]')?.focus({ preventScroll: true });
  }

  /** Outlines the selected position's column. */
  mark(position: number) {
    this.root.querySelectorAll<HTMLElement>('[data-position]').forEach((cell) => {
      const on = Number(cell.dataset.position) === position;
      cell.classList.toggle('selected', on);
      if (cell instanceof HTMLButtonElement) cell.setAttribute('aria-pressed', String(on));
    });
    const picks = [...this.root.querySelectorAll<HTMLButtonElement>('.lens-pick')];
    const pick = picks.find((b) => Number(b.dataset.position) === position) ?? null;
    // One tab stop: the selected column's button, else the newest column's.
    const stop = pick ?? picks[picks.length - 1];
    const hadFocus = picks.some((b) => b === document.activeElement);
    for (const b of picks) b.tabIndex = b === stop ? 0 : -1;
    if (hadFocus && stop) stop.focus({ preventScroll: true });
    const scroller = this.root.querySelector<HTMLElement>('.lens-scroll');
    if (pick && scroller) {
      const left = pick.offsetLeft - scroller.clientWidth / 2;
      scroller.scrollLeft = Math.max(0, left);
    }
  }

  get window(): LensWindow | null {
    return this.lens;
  }
}
