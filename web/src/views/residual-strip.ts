// The residual stream's length at every position and layer, as one strip of cells: a row per layer (the
// stream entering it; the last row, leaving the last layer), a column per position, darker for longer. Where
// a column stands out the model treats that token specially (the first token, an attention sink, is the
// classic case); going down a column shows how much each layer writes. A click selects that step.
import type { ResidualNorms } from '../protocol-step-inspector';
import { LUT, level } from '../ui/colors';
import { el, tokenLabel } from '../ui/text';

const CELL = 6; // pixels per cell of the canvas (scaled by CSS)

export class ResidualStrip {
  private readonly canvas = el('canvas', 'residual-canvas');
  private readonly note = el('p', 'note');
  private shown: ResidualNorms | null = null;
  /** A position was clicked. */
  onSelect: (position: number) => void = () => {};

  constructor(root: HTMLElement) {
    this.canvas.setAttribute('role', 'img');
    this.canvas.addEventListener('click', (event) => {
      const r = this.shown;
      if (!r) return;
      const box = this.canvas.getBoundingClientRect();
      const column = Math.floor(((event.clientX - box.left) / box.width) * r.size);
      if (column >= 0 && column < r.size) this.onSelect(r.begin + column);
    });
    root.append(el('h3', 'flow-subhead', 'The stream\'s length at every position'), this.canvas, this.note);
  }

  empty(message: string) {
    this.shown = null;
    this.canvas.width = this.canvas.height = 0;
    this.note.textContent = message;
  }

  show(r: ResidualNorms, selected: number) {
    this.shown = r;
    const rows = r.layers;
    this.canvas.width = r.size * CELL;
    this.canvas.height = rows * CELL;
    const context = this.canvas.getContext('2d')!;
    const image = context.createImageData(r.size, rows);
    const pixels = new Uint32Array(image.data.buffer);
    // Each row scaled to its own largest length: the rows differ by an order of magnitude, and what a row
    // says is which positions stand out in it.
    for (let row = 0; row < rows; row++) {
      const values = r.norms.subarray(row * r.size, (row + 1) * r.size);
      const largest = Math.max(...values, 1e-9);
      values.forEach((v, column) => (pixels[row * r.size + column] = LUT[level(v / largest, 'linear')]));
    }
    const scratch = new OffscreenCanvas(r.size, rows);
    scratch.getContext('2d')!.putImageData(image, 0, 0);
    context.imageSmoothingEnabled = false;
    context.drawImage(scratch, 0, 0, r.size * CELL, rows * CELL);
    if (selected >= r.begin && selected < r.begin + r.size) {
      context.strokeStyle = '#f59e0b';
      context.lineWidth = 2;
      context.strokeRect((selected - r.begin) * CELL + 1, 1, CELL - 2, rows * CELL - 2);
    }
    this.canvas.dataset.begin = String(r.begin);
    this.canvas.dataset.size = String(r.size);
    this.canvas.setAttribute('aria-label', `The residual stream's length over positions ${r.begin} to ${r.begin + r.size - 1}, a row per layer`);
    // The column that stands out most in the last row, in words.
    const last = r.norms.subarray((rows - 1) * r.size, rows * r.size);
    let top = 0;
    last.forEach((v, i) => (top = v > last[top] ? i : top));
    this.note.textContent =
      `Rows: the stream entering layers 0–${rows - 2}, then leaving the last (each row on its own scale, darker = longer). ` +
      `Positions ${r.begin}–${r.begin + r.size - 1}; the longest stream leaving the last layer is at position ${r.begin + top} “${tokenLabel(r.pieces[top] ?? new Uint8Array())}”. A click selects a position.`;
  }
}
