// The "all heads" overview of one layer: a thumbnail heatmap per head with three numbers that name common
// attention patterns — mean entropy (how spread out), sink (weight on the first token) and previous-token
// (weight on the token just before). Clicking a thumbnail selects that head.
import { LUT, MASKED, level, type Scale } from '../ui/colors';
import { el } from '../ui/text';

export interface HeadStats {
  entropyBits: number;
  sink: number;
  previous: number;
}

/** Pattern statistics of one [n][n] attention matrix starting at `offset`. */
export function headStats(matrix: Float32Array, offset: number, n: number): HeadStats {
  let entropy = 0;
  let sink = 0;
  let previous = 0;
  for (let q = 0; q < n; q++) {
    const row = offset + q * n;
    let h = 0;
    for (let k = 0; k <= q; k++) {
      const p = matrix[row + k];
      if (p > 0) h -= p * Math.log2(p);
    }
    entropy += h;
    sink += matrix[row];
    if (q > 0) previous += matrix[row + q - 1];
  }
  return { entropyBits: entropy / n, sink: sink / n, previous: n > 1 ? previous / (n - 1) : 0 };
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

export class HeadGrid {
  readonly element = el('div', 'head-grid');
  onPick: (head: number) => void = () => {};

  draw(matrix: Float32Array, heads: number, n: number, selected: number, scale: Scale, kvGroup: number) {
    const tiles: HTMLElement[] = [];
    for (let h = 0; h < heads; h++) {
      const offset = h * n * n;
      const tile = el('button', h === selected ? 'head-tile selected' : 'head-tile');
      tile.type = 'button';
      tile.dataset.head = String(h);
      const canvas = el('canvas', 'head-thumb');
      canvas.width = n;
      canvas.height = n;
      const image = new ImageData(n, n);
      const pixels = new Uint32Array(image.data.buffer);
      for (let q = 0; q < n; q++) {
        for (let k = 0; k < n; k++) pixels[q * n + k] = k > q ? MASKED : LUT[level(matrix[offset + q * n + k], scale)];
      }
      canvas.getContext('2d')!.putImageData(image, 0, 0);
      const stats = headStats(matrix, offset, n);
      const name = el('span', 'head-name', `head ${h}`);
      if (kvGroup > 1) name.append(el('span', 'head-kv', ` · kv ${Math.floor(h / kvGroup)}`));
      const numbers = el('span', 'head-stats', `H ${stats.entropyBits.toFixed(1)} b · sink ${percent(stats.sink)} · prev ${percent(stats.previous)}`);
      tile.title =
        `Head ${h}: mean entropy ${stats.entropyBits.toFixed(2)} bits per row, ` +
        `${percent(stats.sink)} of the attention on the first token, ${percent(stats.previous)} on the previous token.`;
      tile.append(canvas, name, numbers);
      tile.addEventListener('click', () => this.onPick(h));
      tiles.push(tile);
    }
    this.element.replaceChildren(...tiles);
  }
}
