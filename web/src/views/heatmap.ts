// One head's attention as a heatmap: rows are query positions (the token doing the looking), columns are
// key positions (the token looked at), with token labels on both axes. The base canvas holds the matrix
// and labels; a transparent overlay canvas above it draws the hover highlight, so hovering never redraws
// the matrix. On a touch or narrow screen cells stay at least MIN_CELL pixels wide: past that the frame
// scrolls sideways (a phone at 200 tokens) rather than shrinking cells to a pixel that no finger can pick;
// with a mouse, hover reads even thin cells and the whole matrix stays in view. The overlay takes the
// keyboard too: arrow keys move a cell cursor (what hovering shows), Enter or Space picks it as a click does.
import type { Scale } from '../ui/colors';
import { attentionImage, lastVisibleKey, type KeyMask } from './attention-image';

export interface HeatmapData {
  size: number;
  matrix: Float32Array; // [size][size], row-major
  offset: number; // where this head's matrix starts in `matrix`
  labels: string[];
  mask: KeyMask;
}

export interface Cell {
  query: number;
  key: number; // -1 when the pointer is on a row label
}

const FONT = '11px ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace';
const LABEL_MAX = 12; // characters
const MIN_CELL = 3; // CSS pixels, on touch or narrow screens
const TOUCH_OR_NARROW = '(pointer: coarse), (max-width: 560px)';

export class Heatmap {
  readonly element: HTMLElement;
  private readonly base: HTMLCanvasElement;
  private readonly overlay: HTMLCanvasElement;
  private data: HeatmapData | null = null;
  private geometry = { left: 0, top: 0, cell: 0, plot: 0, width: 0, height: 0 };
  onHover: (cell: Cell | null, event: PointerEvent | null) => void = () => {};
  onPick: (cell: Cell, event: MouseEvent, pointerType: string) => void = () => {};
  private pointerType = 'mouse'; // of the latest press: a click does not say whether it was a touch everywhere
  private cursor: Cell | null = null; // the keyboard's cell

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'heatmap-frame';
    this.base = document.createElement('canvas');
    this.base.className = 'heatmap';
    this.base.setAttribute('role', 'img');
    this.overlay = document.createElement('canvas');
    this.overlay.className = 'heatmap-overlay';
    this.element.append(this.base, this.overlay);
    this.overlay.addEventListener('pointermove', (event) => this.onHover(this.cellAt(event), event));
    this.overlay.addEventListener('pointerleave', () => this.onHover(null, null));
    this.overlay.addEventListener('pointerdown', (event) => (this.pointerType = event.pointerType));
    this.overlay.addEventListener('click', (event) => {
      const cell = this.cellAt(event);
      if (!cell) return;
      if (cell.key >= 0) this.cursor = cell; // the keyboard goes on from the cell clicked
      this.onPick(cell, event, this.pointerType);
    });
    this.overlay.tabIndex = 0;
    this.overlay.setAttribute('role', 'application');
    this.overlay.setAttribute('aria-roledescription', 'heatmap');
    this.overlay.setAttribute('aria-label', 'Attention heatmap: arrow keys move between cells, Enter pins the row');
    this.overlay.addEventListener('keydown', (event) => this.key(event));
    this.overlay.addEventListener('blur', () => {
      if (this.cursor) this.onHover(null, null);
      this.cursor = null;
    });
  }

  /** The keyboard's cursor: rows with ↑/↓, keys with ←/→ (never into the masked future or the padding), Home/End. */
  private key(event: KeyboardEvent) {
    if (!this.data) return;
    const { mask, size } = this.data;
    const last = mask.length !== undefined ? mask.length - 1 : size - 1; // the last row that is not padding
    const at = this.cursor ?? { query: last, key: lastVisibleKey(mask, last, size) };
    let { query, key } = at;
    if (event.key === 'ArrowUp') query--;
    else if (event.key === 'ArrowDown') query++;
    else if (event.key === 'ArrowLeft') key--;
    else if (event.key === 'ArrowRight') key++;
    else if (event.key === 'Home') key = 0;
    else if (event.key === 'End') key = lastVisibleKey(this.data.mask, query, this.data.size);
    else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.onPick(at, this.pointAt(at), 'keyboard');
      return;
    } else return;
    event.preventDefault();
    query = Math.max(0, Math.min(query, last));
    const cell = { query, key: Math.max(0, Math.min(key, lastVisibleKey(mask, query, size))) };
    this.cursor = cell;
    this.onHover(cell, this.pointAt(cell) as PointerEvent);
  }

  /** Where a cell's centre is on screen, scrolled into the frame's view: the tooltip's anchor for keys. */
  private pointAt(cell: Cell): MouseEvent {
    const { left, top, cell: size } = this.geometry;
    const x = left + (cell.key + 0.5) * size;
    const y = top + (cell.query + 0.5) * size;
    const frame = this.element;
    if (x - size < frame.scrollLeft || x + size > frame.scrollLeft + frame.clientWidth) frame.scrollLeft = x - frame.clientWidth / 2;
    const above = this.overlay.getBoundingClientRect().top + y;
    if (above < size || above > window.innerHeight - size) window.scrollBy(0, above - window.innerHeight / 2);
    const rect = this.overlay.getBoundingClientRect();
    return new MouseEvent('click', { clientX: rect.left + x, clientY: rect.top + y });
  }

  get canvas() {
    return this.base;
  }

  draw(data: HeatmapData, scale: Scale, width: number) {
    this.data = data;
    const n = data.size;
    const ctx = this.base.getContext('2d')!;
    ctx.font = FONT;
    const labels = data.labels.map(shorten);
    const labelWidth = Math.min(96, Math.max(24, ...labels.map((l) => ctx.measureText(l).width))) + 10;
    const minimum = window.matchMedia(TOUCH_OR_NARROW).matches ? Math.ceil(n * MIN_CELL) : 0;
    const plot = Math.max(60, Math.floor(width - labelWidth - 4), minimum);
    const cell = plot / n;
    const top = labelWidth;
    this.geometry = { left: labelWidth, top, cell, plot, width: labelWidth + plot + 4, height: top + plot + 4 };
    const dpr = window.devicePixelRatio || 1;
    for (const canvas of [this.base, this.overlay]) {
      canvas.width = Math.round(this.geometry.width * dpr);
      canvas.height = Math.round(this.geometry.height * dpr);
      canvas.style.width = `${this.geometry.width}px`;
      canvas.style.height = `${this.geometry.height}px`;
    }
    this.base.setAttribute('aria-label', `Attention heatmap over ${n} tokens`);
    if (this.cursor && this.cursor.query >= n) this.cursor = null;

    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.geometry.width, this.geometry.height);
    // The matrix, one pixel per cell, scaled up without smoothing.
    const bitmap = document.createElement('canvas');
    bitmap.width = n;
    bitmap.height = n;
    bitmap.getContext('2d')!.putImageData(attentionImage(data.matrix, data.offset, n, data.mask, scale), 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(bitmap, this.geometry.left, top, plot, plot);
    ctx.strokeStyle = '#d5d9e2';
    ctx.lineWidth = 1;
    ctx.strokeRect(this.geometry.left - 0.5, top - 0.5, plot + 1, plot + 1);
    if (data.mask.length !== undefined && data.mask.length < n) this.hatchPadding(ctx, data.mask.length, cell);

    // Labels: every token when they fit, else every stride-th.
    const stride = Math.max(1, Math.ceil(12 / cell));
    ctx.fillStyle = '#4a5263';
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let i = 0; i < n; i += stride) ctx.fillText(labels[i], this.geometry.left - 6, top + (i + 0.5) * cell);
    ctx.save();
    ctx.translate(this.geometry.left, top - 6);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'left';
    for (let i = 0; i < n; i += stride) ctx.fillText(labels[i], 0, (i + 0.5) * cell);
    ctx.restore();
    this.highlight(null);
  }

  /** Outlines a query row (and a key cell), or with query -1 a key's column, on the overlay. */
  highlight(cell: Cell | null) {
    const ctx = this.overlay.getContext('2d')!;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.geometry.width, this.geometry.height);
    if (!cell || !this.data) return;
    const { left, top, cell: c } = this.geometry;
    const q = cell.query;
    if (q < 0) {
      // A key alone (the head view's other side): its column, every query's weight on it.
      if (cell.key < 0) return;
      ctx.fillStyle = 'rgba(79, 70, 229, 0.10)';
      ctx.fillRect(left + cell.key * c, 0, c, top - 2); // the column's label
      ctx.strokeStyle = '#f59e0b';
      ctx.lineWidth = 2;
      ctx.strokeRect(left + cell.key * c, top, c, this.geometry.plot);
      return;
    }
    ctx.fillStyle = 'rgba(79, 70, 229, 0.10)';
    ctx.fillRect(0, top + q * c, left - 2, c); // the row's label
    ctx.strokeStyle = '#f59e0b';
    ctx.lineWidth = 2;
    ctx.strokeRect(left, top + q * c, (lastVisibleKey(this.data.mask, q, this.data.size) + 1) * c, c);
    if (cell.key >= 0) {
      ctx.fillStyle = 'rgba(79, 70, 229, 0.10)';
      ctx.fillRect(left + cell.key * c, 0, c, top - 2); // the column's label
      ctx.strokeStyle = '#111827';
      ctx.lineWidth = 1.5;
      ctx.strokeRect(left + cell.key * c, top + q * c, c, c);
    }
  }

  /** Diagonal hatching over the padding's rows and columns (from `length` on), so it reads as no weight at all. */
  private hatchPadding(ctx: CanvasRenderingContext2D, length: number, cell: number) {
    const { left, top, plot } = this.geometry;
    const edge = length * cell;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left + edge, top, plot - edge, plot); // the padding's columns
    ctx.rect(left, top + edge, edge, plot - edge); // and its rows
    ctx.clip();
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.7)';
    ctx.lineWidth = 1;
    for (let d = -plot; d < plot; d += 6) {
      ctx.beginPath();
      ctx.moveTo(left + d, top + plot);
      ctx.lineTo(left + d + plot, top);
      ctx.stroke();
    }
    ctx.restore();
  }

  private cellAt(event: PointerEvent | MouseEvent): Cell | null {
    if (!this.data) return null;
    const rect = this.overlay.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const { left, top, cell, plot } = this.geometry;
    const n = this.data.size;
    const inRows = y >= top && y < top + plot;
    const inCols = x >= left && x < left + plot;
    if (inRows && inCols) return { query: Math.min(n - 1, Math.floor((y - top) / cell)), key: Math.min(n - 1, Math.floor((x - left) / cell)) };
    if (inRows && x < left) return { query: Math.min(n - 1, Math.floor((y - top) / cell)), key: -1 };
    return null;
  }
}

function shorten(label: string): string {
  return label.length > LABEL_MAX ? `${label.slice(0, LABEL_MAX - 1)}…` : label;
}
