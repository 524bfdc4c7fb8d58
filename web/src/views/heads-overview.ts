// The model view: every head of every layer as a small heatmap of the same window of recent tokens, one row
// per layer, all drawn from one batch the worker sends. Clicking a thumbnail opens it large in the attention
// view; Shift+click (or the X key) marks it for ablation. After "Measure heads" each carries its role.
import type { AttentionBatch, HeadReport } from '../protocol-model-inspector';
import { el } from '../ui/text';
import { attentionImage } from './attention-image';
import type { HeadSelection } from './head-selection';

export class HeadsOverview {
  private batch: AttentionBatch | null = null;
  private roles = new Map<number, HeadReport>();
  private tiles: HTMLButtonElement[] = [];
  private tabStop = 0; // the one tile Tab lands on (roving tabindex): 40 heads are one stop, arrows move within
  private shape = ''; // layers x heads of the tiles built
  private readonly grid = el('div', 'model-grid');
  private readonly caption = el('p', 'model-caption muted');
  onOpen: (layer: number, head: number) => void = () => {};

  constructor(
    private readonly root: HTMLElement,
    private readonly selection: HeadSelection,
  ) {
    selection.onChange(() => this.mark());
    this.clear('Generate some text to see every head of the model at once.');
  }

  clear(message: string) {
    this.batch = null;
    this.tiles = [];
    this.shape = '';
    this.root.replaceChildren(el('p', 'empty', message));
  }

  /** The roles from the latest measurement (or none). */
  setRoles(heads: HeadReport[] | null) {
    this.roles = new Map((heads ?? []).map((h) => [h.layer * 10000 + h.head, h]));
    this.mark();
  }

  get drawnBatch() {
    return this.batch;
  }

  draw(batch: AttentionBatch) {
    this.batch = batch;
    const { layers, heads, size } = batch;
    if (size === 0) return this.clear('Generate some text to see every head of the model at once.');
    const span =
      size === batch.total
        ? `all ${size} tokens`
        : `${batch.begin + size === batch.total ? `the newest ${size}` : `positions ${batch.begin}–${batch.begin + size - 1}`} of ${batch.total} tokens (the window follows the selected step: move it to see an earlier one)`;
    this.caption.textContent =
      `${layers} layers × ${heads} heads over ${span}. Click a head to open it in the attention view above; ` +
      `Shift+click, or press X on it, to mark it for ablation.` +
      (batch.scaled ? ' Drawn from the ablated run.' : '');
    // The tiles are built once per model shape and their thumbnails painted in place: a refresh while a
    // generation streams then costs no new elements and keeps the keyboard's focus and the pointer's hover.
    const shape = `${layers}x${heads}`;
    if (this.shape !== shape || !this.root.contains(this.grid)) this.build(layers, heads);
    this.shape = shape;
    this.tiles.forEach((tile, i) => this.paint(tile.querySelector('canvas')!, batch, Math.floor(i / heads), i % heads));
    this.mark();
  }

  private build(layers: number, heads: number) {
    const rows: HTMLElement[] = [];
    this.tiles = [];
    if (this.tabStop >= layers * heads) this.tabStop = 0;
    for (let layer = 0; layer < layers; layer++) {
      const row = el('div', 'model-row');
      row.append(el('span', 'model-row-label', `Layer ${layer}`));
      const cells = el('div', 'model-row-heads');
      for (let head = 0; head < heads; head++) {
        const tile = el('button', 'model-tile');
        tile.type = 'button';
        tile.dataset.layer = String(layer);
        tile.dataset.head = String(head);
        tile.tabIndex = this.tiles.length === this.tabStop ? 0 : -1;
        tile.addEventListener('focus', () => this.moveTabStop(layer * heads + head));
        tile.append(el('canvas', 'model-thumb'), el('span', 'model-tile-name', `H${head}`), el('span', 'model-tile-role'));
        tile.addEventListener('click', (event) => {
          if (event.shiftKey || event.ctrlKey || event.metaKey) this.selection.toggle(layer, head);
          else this.onOpen(layer, head);
        });
        tile.addEventListener('keydown', (event) => {
          if (event.key === 'x' || event.key === 'X') {
            event.preventDefault();
            this.selection.toggle(layer, head);
          } else if (event.key.startsWith('Arrow')) {
            event.preventDefault();
            this.moveFocus(layer, head, event.key);
          }
        });
        cells.append(tile);
        this.tiles.push(tile);
      }
      row.append(cells);
      rows.push(row);
    }
    this.grid.style.setProperty('--model-heads', String(heads));
    this.grid.replaceChildren(...rows);
    this.root.replaceChildren(this.caption, this.grid);
  }

  private moveFocus(layer: number, head: number, key: string) {
    if (!this.batch) return;
    const { layers, heads } = this.batch;
    if (key === 'ArrowLeft') head = Math.max(0, head - 1);
    if (key === 'ArrowRight') head = Math.min(heads - 1, head + 1);
    if (key === 'ArrowUp') layer = Math.max(0, layer - 1);
    if (key === 'ArrowDown') layer = Math.min(layers - 1, layer + 1);
    this.tiles[layer * heads + head]?.focus();
  }

  private moveTabStop(index: number) {
    if (this.tiles[this.tabStop]) this.tiles[this.tabStop].tabIndex = -1;
    this.tabStop = index;
    if (this.tiles[index]) this.tiles[index].tabIndex = 0;
  }

  /** One head's window as an image, one pixel per cell (CSS scales it up without smoothing). */
  private paint(canvas: HTMLCanvasElement, batch: AttentionBatch, layer: number, head: number) {
    const n = batch.size;
    if (canvas.width !== n) canvas.width = canvas.height = n;
    const offset = (layer * batch.heads + head) * n * n;
    const mask = { begin: batch.begin, firstVisible: batch.firstVisible.subarray(layer * n, (layer + 1) * n) };
    canvas.getContext('2d')!.putImageData(attentionImage(batch.matrix, offset, n, mask, 'sqrt'), 0, 0);
  }

  /** Roles, ablation marks and accessible names. */
  private mark() {
    if (!this.batch) return;
    const heads = this.batch.heads;
    this.tiles.forEach((tile, i) => {
      const layer = Math.floor(i / heads);
      const head = i % heads;
      const report = this.roles.get(layer * 10000 + head);
      const marked = this.selection.has(layer, head);
      const scale = this.selection.scale(layer, head);
      const roleText = report ? report.role : '';
      tile.querySelector('.model-tile-role')!.textContent = roleText === 'previous-token' ? 'previous' : roleText; // fits the tile
      tile.dataset.role = roleText;
      tile.classList.toggle('marked', marked);
      tile.setAttribute('aria-pressed', String(marked));
      const stats = this.batch!.stats;
      const s = (layer * heads + head) * 3;
      tile.title =
        `Layer ${layer} head ${head}: entropy ${stats[s].toFixed(2)} bits, ${Math.round(stats[s + 1] * 100)}% on the first token, ` +
        `${Math.round(stats[s + 2] * 100)}% on the previous token (over this window's rows).`;
      tile.setAttribute(
        'aria-label',
        `layer ${layer} head ${head}` + (report ? `, role ${report.role}` : '') + (marked ? (this.selection.isMean(layer, head) ? ', marked to be replaced by its mean' : `, marked for ablation at scale ${scale}`) : ''),
      );
    });
  }
}
