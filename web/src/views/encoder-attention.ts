// An encoder's attention (BERT), for one text: the heatmap of a head with no mask triangle (every token sees
// every token of its text, before and after it), every head of the layer beside it, bertviz's head view in
// both directions below, and the heads' roles. A sentence of the similarity batch is drawn at the batch's
// padded width, its padding hatched: the rows and columns the padding mask keeps out of every softmax.
// The picked token is the one current step: a click in the heatmap, the head view or the token strip picks
// it everywhere.
import type { EncoderAttentionResult } from '../protocol-encoder';
import { legend, scalePicker, type Scale } from '../ui/colors';
import { describeProbability, el, inlineField, tokenLabel } from '../ui/text';
import { hideTip, showTip } from '../ui/tooltip';
import { isPadding, type KeyMask } from './attention-image';
import { EncoderHeadTable } from './encoder-head-table';
import { HeadGrid } from './head-grid';
import { HeadView } from './head-view';
import { Heatmap, type Cell } from './heatmap';

export class EncoderAttentionView {
  private result: EncoderAttentionResult | null = null;
  private layer = 0;
  private head = 0;
  private scale: Scale = 'linear';
  private query: number | null = null; // the picked token as a query (a row)
  private key: number | null = null; // or as a key (a column), picked on the head view's right side
  private labels: string[] = [];
  private ablated = false;
  private readonly heatmap = new Heatmap();
  private readonly grid = new HeadGrid();
  private readonly headView: HeadView;
  private readonly table: EncoderHeadTable;
  private readonly layerSelect = el('select');
  private readonly headSelect = el('select');
  private readonly scaleSelect = scalePicker('encoder-attention-scale');
  private readonly caption = el('div', 'heatmap-caption');
  private readonly gridTitle = el('h3', 'panel-title');
  private readonly legendSlot = el('div', 'legend-slot');
  private readonly left = el('div', 'attention-left');
  private readonly body = el('div', 'attention-body');

  constructor(
    private readonly root: HTMLElement,
    controls: HTMLElement,
    headViewRoot: HTMLElement,
    tableRoot: HTMLElement,
  ) {
    this.layerSelect.id = 'encoder-attention-layer';
    this.headSelect.id = 'encoder-attention-head';
    controls.append(inlineField('Layer', this.layerSelect), inlineField('Head', this.headSelect), inlineField('Scale', this.scaleSelect));
    this.layerSelect.addEventListener('change', () => this.pick(Number(this.layerSelect.value), this.head));
    this.headSelect.addEventListener('change', () => this.pick(this.layer, Number(this.headSelect.value)));
    this.scaleSelect.addEventListener('change', () => {
      this.scale = this.scaleSelect.value as Scale;
      this.draw();
    });
    this.heatmap.onHover = (cell, event) => this.hover(cell, event);
    this.heatmap.onPick = (cell) => this.pickQuery(cell.query);
    this.grid.onPick = (head) => this.pick(this.layer, head);
    this.grid.firstTokenLabel = '[CLS]';
    this.headView = new HeadView(headViewRoot, 'encoder-head-view', 'Load an encoder to see where each head of a layer looks.');
    this.headView.onPickQuery = (query) => this.pickQuery(query, false);
    this.headView.onPickKey = (key) => this.pickKey(key);
    this.headView.onLayer = (layer) => this.pick(layer, this.head);
    this.table = new EncoderHeadTable(tableRoot);
    this.table.onPick = (layer, head) => this.pick(layer, head);
    this.table.onSwitchOff = (heads) => this.onSwitchOff(heads);
    this.left.append(this.caption, this.heatmap.element, this.legendSlot);
    const right = el('div', 'attention-right');
    right.append(this.gridTitle, this.grid.element);
    this.body.append(this.left, right);
    new ResizeObserver(() => this.draw()).observe(this.left);
    this.clear('Load an encoder to see where its heads look.');
  }

  /** Called with the heads a person switched off in the roles table (the page runs every task again). */
  onSwitchOff: (heads: { layer: number; head: number }[]) => void = () => {};

  setModel(layers: number, heads: number) {
    this.table.reset();
    this.layer = Math.min(this.layer, Math.max(0, layers - 1));
    this.head = Math.min(this.head, Math.max(0, heads - 1));
    this.layerSelect.replaceChildren(...Array.from({ length: layers }, (_, i) => new Option(String(i), String(i))));
    this.headSelect.replaceChildren(...Array.from({ length: heads }, (_, i) => new Option(String(i), String(i))));
    this.layerSelect.value = String(this.layer);
    this.headSelect.value = String(this.head);
    this.headView.setModel(layers, heads);
  }

  clear(message: string) {
    this.result = null;
    this.root.replaceChildren(el('p', 'empty', message));
    this.headView.clear(message);
    this.table.clear(message);
  }

  /** `ablated`: drawn from a run with heads switched off. */
  show(result: EncoderAttentionResult, ablated = false) {
    this.result = result;
    this.ablated = ablated;
    this.labels = result.pieces.map(tokenLabel);
    if (this.query !== null && this.query >= result.length) this.query = null;
    if (this.key !== null && this.key >= result.length) this.key = null;
    if (!this.root.contains(this.body)) this.root.replaceChildren(this.body);
    this.table.show(result.headReports, result.length, result.thresholds);
    this.draw();
  }

  /** Shows head `head` of layer `layer` everywhere. */
  private pick(layer: number, head: number) {
    this.layer = layer;
    this.head = head;
    this.layerSelect.value = String(layer);
    this.headSelect.value = String(head);
    this.draw();
  }

  /** Picks the token whose looking the views follow (clicking it again lets go). */
  private pickQuery(query: number, fromHeatmap = true) {
    const result = this.result;
    if (!result || query >= result.length) return; // padding is nobody's query
    this.query = fromHeatmap && this.query === query ? null : query;
    this.key = null;
    if (fromHeatmap) this.headView.select(this.query ?? result.length - 1);
    this.heatmap.highlight(this.resting());
  }

  /** The head view picked a key: the heatmap marks its column, every query's weight on it. */
  private pickKey(key: number) {
    this.key = key;
    this.query = null;
    this.heatmap.highlight(this.resting());
  }

  /** What the heatmap marks when the pointer is not on it: the picked row, or the picked column. */
  private resting(): Cell | null {
    if (this.query !== null) return { query: this.query, key: -1 };
    return this.key !== null ? { query: -1, key: this.key } : null;
  }

  private mask(): KeyMask {
    return { begin: 0, firstVisible: new Int32Array(0), causal: false, length: this.result?.length };
  }

  private draw() {
    const r = this.result;
    if (!r) return;
    const n = r.stride;
    const width = Math.min(640, Math.max(240, this.left.clientWidth));
    const padded = r.length < n ? ` · padded to ${n} in a batch of ${r.texts} (hatched: padding, masked out)` : '';
    this.caption.replaceChildren(
      el('strong', '', `Layer ${this.layer} · head ${this.head}`),
      el('span', 'muted', ` · ${r.length} tokens${padded} · rows look at columns, before and after them: no causal mask`),
    );
    if (this.ablated) this.caption.append(el('span', 'live-badge', 'heads switched off'));
    const labels = Array.from({ length: n }, (_, i) => (i < r.length ? this.labels[i] : 'pad'));
    const perHead = n * n;
    const layerOffset = this.layer * r.heads * perHead;
    const layerMatrix = r.matrix.subarray(layerOffset, layerOffset + r.heads * perHead);
    this.heatmap.draw({ size: n, matrix: layerMatrix, offset: this.head * perHead, labels, mask: this.mask() }, this.scale, width);
    this.heatmap.highlight(this.resting());
    this.legendSlot.replaceChildren(legend(this.scale, r.length < n ? 'padding' : 'none'));
    this.gridTitle.textContent = `All ${r.heads} heads of layer ${this.layer}`;
    const stats = new Float32Array(r.heads * 3);
    for (const h of r.headReports.filter((report) => report.layer === this.layer)) stats.set([h.entropyBits, h.sink, h.previousToken], 3 * h.head);
    this.grid.draw(layerMatrix, stats, r.heads, n, this.head, this.scale, 1, this.mask());
    this.headView.showLayer(this.layer, {
      heads: r.heads,
      begin: 0,
      size: n,
      total: n,
      matrix: r.matrix,
      pieces: r.pieces,
      scaled: this.ablated,
      causal: false,
      length: r.length,
    });
    this.table.mark(this.layer, this.head);
  }

  private hover(cell: Cell | null, event: PointerEvent | null) {
    const r = this.result;
    this.heatmap.highlight(cell ?? this.resting());
    if (!r || !cell || !event || cell.key < 0) return hideTip();
    const n = r.stride;
    const label = (i: number) => (i < r.length ? this.labels[i] : 'padding');
    if (isPadding(this.mask(), cell.query, cell.key)) {
      showTip(event.clientX, event.clientY, `${label(cell.query)} → ${label(cell.key)}`, [
        ['padding', cell.query >= r.length ? 'a padding row: its looking is computed and thrown away' : 'a padding key: the padding mask gives it no weight', false],
      ]);
      return;
    }
    const w = r.matrix[((this.layer * r.heads + this.head) * n + cell.query) * n + cell.key];
    showTip(event.clientX, event.clientY, `${label(cell.query)} → ${label(cell.key)}`, [
      ['query', `token ${cell.query} ${label(cell.query)}`, true],
      ['key', `token ${cell.key} ${label(cell.key)}`, true],
      ['weight', describeProbability(w), true],
    ]);
  }

  /** The heatmap's canvas. */
  get heatmapCanvas(): HTMLCanvasElement {
    return this.heatmap.canvas;
  }
}
