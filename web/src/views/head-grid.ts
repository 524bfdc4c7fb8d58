// The "all heads" overview of one layer: a thumbnail heatmap per head with three numbers that name common
// attention patterns — mean entropy (how spread out), sink (weight on the first token) and previous-token
// (weight on the token just before), computed by the engine. Clicking a thumbnail selects that head.
import type { Scale } from '../ui/colors';
import { el } from '../ui/text';
import { attentionImage, type KeyMask } from './attention-image';

/** The engine's statistics of one head (core/src/inspect/head_stats.cpp), over the window's query rows. */
export interface HeadStats {
  entropyBits: number;
  sink: number;
  previous: number;
}

/** Head `h`'s numbers in the engine's flat [heads][3] array. */
export const statsOf = (stats: Float32Array, h: number): HeadStats => ({ entropyBits: stats[3 * h], sink: stats[3 * h + 1], previous: stats[3 * h + 2] });

/** Even rows: 8 heads as 4 × 2, 6 as 3 × 2, 12 as 4 × 3, 32 as 8 × 4. */
const columnsFor = (heads: number) => (heads > 16 ? 8 : heads <= 4 ? heads : heads % 4 === 0 ? 4 : heads % 3 === 0 ? 3 : 4);
/** On a phone (styles.css): 2 columns, so the thumbnails and numbers stay legible; 4 for many heads. */
const narrowColumnsFor = (heads: number) => (heads > 16 ? 4 : Math.min(2, heads));

const percent = (x: number) => `${Math.round(x * 100)}%`;
const THUMB = 96; // pixels; longer sequences are max-pooled so thin patterns (a diagonal) stay visible

/** A head's matrix as a small image: each pixel the largest weight of the cells it covers. */
function thumbnail(matrix: Float32Array, offset: number, n: number, scale: Scale, mask: KeyMask): HTMLCanvasElement {
  const size = Math.min(n, THUMB);
  const canvas = el('canvas', 'head-thumb');
  canvas.width = size;
  canvas.height = size;
  canvas.getContext('2d')!.putImageData(attentionImage(matrix, offset, n, mask, scale, size), 0, 0);
  return canvas;
}

export class HeadGrid {
  readonly element = el('div', 'head-grid');
  onPick: (head: number) => void = () => {};
  /** What the first token's share is called: a decoder's "sink"; an encoder's first token is [CLS]. */
  firstTokenLabel = 'sink';

  draw(matrix: Float32Array, allStats: Float32Array, heads: number, n: number, selected: number, scale: Scale, kvGroup: number, mask: KeyMask) {
    const tiles: HTMLElement[] = [];
    for (let h = 0; h < heads; h++) {
      const offset = h * n * n;
      const tile = el('button', h === selected ? 'head-tile selected' : 'head-tile');
      tile.type = 'button';
      tile.dataset.head = String(h);
      const canvas = thumbnail(matrix, offset, n, scale, mask);
      const stats = statsOf(allStats, h);
      const name = el('span', 'head-name', `head ${h}`);
      const nameRow = el('span', 'head-name-row');
      nameRow.append(name);
      if (kvGroup > 1) nameRow.append(el('span', 'head-kv', `kv ${Math.floor(h / kvGroup)}`));
      const numbers = el('dl', 'head-stats');
      for (const [label, value] of [
        ['entropy', `${stats.entropyBits.toFixed(1)} bits`],
        [this.firstTokenLabel, percent(stats.sink)],
        ['previous', percent(stats.previous)],
      ]) {
        numbers.append(el('dt', '', label), el('dd', '', value));
      }
      tile.title =
        `Head ${h}: mean entropy ${stats.entropyBits.toFixed(2)} bits per row, ` +
        `${percent(stats.sink)} of the attention on the first token, ${percent(stats.previous)} on the previous token.` +
        (kvGroup > 1 ? ` It shares key/value head ${Math.floor(h / kvGroup)} with ${kvGroup - 1} other head${kvGroup > 2 ? 's' : ''}.` : '');
      tile.append(canvas, nameRow, numbers);
      tile.addEventListener('click', () => this.onPick(h));
      tiles.push(tile);
    }
    this.element.style.setProperty('--columns', String(columnsFor(heads)));
    this.element.style.setProperty('--columns-narrow', String(narrowColumnsFor(heads)));
    // Redrawn on every pick and live refresh: the keyboard keeps its place on the head it was on.
    const focusedHead = this.element.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.head : undefined;
    this.element.replaceChildren(...tiles);
    if (focusedHead !== undefined) tiles[Number(focusedHead)]?.focus({ preventScroll: true });
  }
}
