// The attention view: pick a layer and head; the heatmap shows that head's attention over the newest tokens
// (a window of the sequence, recomputed by the engine), the overview shows every head of the layer, and the
// strip below shows, for the token under the pointer (or the last one), how much it attends to every earlier
// token of the window. During a generation the page
// refreshes it every so often ("live"); on a touch screen a tap shows the cell's numbers and pins the row.
import type { AttentionTrace } from '../protocol';
import { cssColor, inkOn, legend, scalePicker, type Scale } from '../ui/colors';
import { describeProbability, el, inlineField, tokenLabel } from '../ui/text';
import { hideTip, pinTip, showTip } from '../ui/tooltip';
import { HeadGrid } from './head-grid';
import { isMasked, type KeyMask, outsideWindow } from './attention-image';
import { Heatmap, type Cell } from './heatmap';

/** Why query row q cannot see key k, in plain words. */
function maskedWhy(mask: KeyMask, q: number, k: number): string {
  if (outsideWindow(mask, q, k))
    return `masked: older than this layer's sliding window (it sees tokens ${mask.firstVisible[q]}–${mask.begin + q})`;
  return 'masked: the future is not visible';
}

export type FetchAttention = (layer: number, head: number) => Promise<AttentionTrace>;

export class AttentionView {
  private layer = 0;
  private head = 0;
  private scale: Scale = 'linear';
  private heads = 0;
  private kvGroup = 1;
  private trace: AttentionTrace | null = null;
  private labels: string[] = [];
  private pinned: number | null = null;
  private tapped: Cell | null = null;
  private live = false;
  private request = 0;
  private drawnWidth = -1; // the width of the left column at the last drawing
  private readonly heatmap = new Heatmap();
  private readonly grid = new HeadGrid();
  private readonly layerSelect = el('select');
  private readonly headSelect = el('select');
  private readonly scaleSelect = scalePicker('attention-scale');
  private readonly caption = el('div', 'heatmap-caption');
  private readonly gridTitle = el('h3', 'panel-title');
  private readonly focusTitle = el('h3', 'panel-title');
  private readonly focusChips = el('div', 'focus-chips');
  private readonly legendSlot = el('div', 'legend-slot');
  private readonly body = el('div', 'attention-body');
  private readonly left = el('div', 'attention-left');
  /** Resolves when the drawing for the latest refresh is on screen (the test hook waits on it). */
  drawn: Promise<void> = Promise.resolve();
  /** What the latest refresh cost in milliseconds: the worker reading the trace, and this view drawing it. */
  refreshMs = 0;

  constructor(
    private readonly root: HTMLElement,
    controls: HTMLElement,
    private readonly fetch: FetchAttention,
  ) {
    this.layerSelect.id = 'attention-layer';
    this.headSelect.id = 'attention-head';
    controls.append(inlineField('Layer', this.layerSelect), inlineField('Head', this.headSelect), inlineField('Scale', this.scaleSelect));
    this.layerSelect.addEventListener('change', () => {
      this.layer = Number(this.layerSelect.value);
      this.onView(this.layer, this.head);
      void this.refresh();
    });
    this.headSelect.addEventListener('change', () => this.pickHead(Number(this.headSelect.value)));
    this.scaleSelect.addEventListener('change', () => {
      this.scale = this.scaleSelect.value as Scale;
      this.redraw();
    });
    this.heatmap.onHover = (cell, event) => this.hover(cell, event);
    this.heatmap.onPick = (cell, event, pointerType) => {
      if (pointerType === 'touch') return this.tap(cell, event);
      this.pinned = this.pinned === cell.query ? null : cell.query;
      this.showFocus(this.pinned ?? this.lastQuery());
      if (this.pinned !== null) this.onQuery(this.trace!.begin + this.pinned); // the page's current step
    };
    this.grid.onPick = (head) => this.pickHead(head);

    this.left.append(this.caption, this.heatmap.element, this.legendSlot);
    const right = el('div', 'attention-right');
    right.append(this.gridTitle, this.grid.element);
    this.body.append(this.left, right);
    // Redraws when the view's width changes; not when the body is put back into the page (refresh has drawn).
    new ResizeObserver(() => {
      if (this.left.clientWidth !== this.drawnWidth) this.redraw();
    }).observe(this.left);
    this.setModel(0, 0, 0);
  }

  setModel(layers: number, heads: number, kvHeads: number) {
    this.heads = heads;
    this.kvGroup = kvHeads > 0 ? heads / kvHeads : 1;
    this.layer = Math.min(this.layer, Math.max(0, layers - 1));
    this.head = Math.min(this.head, Math.max(0, heads - 1));
    this.layerSelect.replaceChildren(...Array.from({ length: layers }, (_, i) => new Option(String(i), String(i))));
    this.headSelect.replaceChildren(...Array.from({ length: heads }, (_, i) => new Option(String(i), String(i))));
    this.layerSelect.value = String(this.layer);
    this.headSelect.value = String(this.head);
    this.layerSelect.disabled = this.headSelect.disabled = layers === 0;
    this.clear(layers === 0 ? 'Load a model to look at its attention.' : undefined);
  }

  clear(message = 'Generate some text to see where each head looks. Rows are the tokens doing the looking, columns the tokens they look at; the causal mask hides the future.') {
    this.trace = null;
    this.pinned = null;
    this.tapped = null;
    this.request++;
    this.root.replaceChildren(el('p', 'empty', message));
  }

  /**
   * Reads the selected layer's attention (all heads) from the worker and draws it; `live` while a generation
   * is still running (the caption says the view is following it).
   */
  refresh(live = false): Promise<void> {
    const request = ++this.request;
    this.drawn = this.fetch(this.layer, -1).then(
      (trace) => {
        if (request !== this.request) return;
        const drawing = performance.now();
        this.live = live;
        if (trace.size === 0) return this.clear();
        this.trace = trace;
        this.labels = trace.pieces.slice(0, trace.size).map(tokenLabel);
        this.focusChips.replaceChildren();
        if (this.pinned !== null && this.pinned >= trace.size) this.pinned = null;
        if (this.selectedQuery !== null) this.pinned = this.rowOf(this.selectedQuery);
        if (!this.root.contains(this.body)) this.root.replaceChildren(this.body, this.focusSection());
        this.redraw();
        this.refreshMs = trace.readMs + (performance.now() - drawing);
      },
      (error: unknown) => {
        if (request === this.request) this.clear(`The attention trace could not be read: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    return this.drawn;
  }

  private focusSection() {
    const section = el('div', 'focus');
    section.append(this.focusTitle, this.focusChips);
    section.addEventListener('pointerleave', () => {
      this.heatmap.highlight(this.pinned !== null ? { query: this.pinned, key: -1 } : null);
      this.showFocus(this.pinned ?? this.lastQuery());
    });
    return section;
  }

  /** Shows `head` of `layer` (the model view opens a thumbnail here) and reads that layer again. */
  select(layer: number, head: number): Promise<void> {
    this.layer = layer;
    this.layerSelect.value = String(layer);
    this.head = head;
    this.headSelect.value = String(head);
    this.onView(this.layer, this.head);
    return this.refresh();
  }

  private pickHead(head: number) {
    this.head = head;
    this.headSelect.value = String(head);
    this.onView(this.layer, this.head);
    this.redraw();
  }

  private redraw() {
    const trace = this.trace;
    if (!trace) return;
    const n = trace.size;
    this.drawnWidth = this.left.clientWidth;
    const width = Math.min(640, Math.max(240, this.drawnWidth));
    const span = n === trace.total ? `${n} tokens` : `tokens ${trace.begin}–${trace.begin + n - 1} of ${trace.total}`;
    this.caption.replaceChildren(
      el('strong', '', `Layer ${this.layer} · head ${this.head}`),
      el('span', 'muted', ` · ${span} · rows look at columns`),
    );
    if (this.live) this.caption.append(el('span', 'live-badge', 'updating while generating'));
    const note = windowNote(trace);
    if (note) this.caption.append(el('p', 'window-note', note));
    this.heatmap.draw({ size: n, matrix: trace.matrix, offset: this.head * n * n, labels: this.labels, mask: this.mask() }, this.scale, width);
    this.legendSlot.replaceChildren(legend(this.scale));
    this.gridTitle.textContent = `All ${this.heads} heads of layer ${this.layer}`;
    this.grid.draw(trace.matrix, trace.stats, trace.heads, n, this.head, this.scale, this.kvGroup, this.mask());
    if (this.focusChips.childElementCount !== n) this.buildFocusChips();
    this.showFocus(this.pinned ?? this.lastQuery());
    if (this.pinned !== null) this.heatmap.highlight({ query: this.pinned, key: -1 });
  }

  private lastQuery() {
    return this.trace ? this.trace.size - 1 : 0;
  }

  private weight(query: number, key: number) {
    const t = this.trace!;
    return t.matrix[this.head * t.size * t.size + query * t.size + key];
  }

  private hover(cell: Cell | null, event: PointerEvent | null) {
    if (!this.trace) return;
    this.heatmap.highlight(cell ?? (this.pinned !== null ? { query: this.pinned, key: -1 } : null));
    if (!cell || !event) {
      hideTip();
      this.showFocus(this.pinned ?? this.lastQuery());
      return;
    }
    this.showFocus(cell.query);
    if (cell.key < 0) return hideTip();
    this.cellTip(cell, event);
  }

  /**
   * A touch has no hover: a tap pins the row and shows the cell's numbers until the next touch; tapping the
   * same cell again releases it.
   */
  private tap(cell: Cell, event: MouseEvent) {
    const again = this.tapped !== null && this.tapped.query === cell.query && this.tapped.key === cell.key;
    this.tapped = again ? null : cell;
    this.pinned = again ? null : cell.query;
    this.heatmap.highlight(again ? null : cell);
    if (again || cell.key < 0) {
      hideTip();
    } else {
      this.cellTip(cell, event);
      pinTip();
    }
    this.showFocus(this.pinned ?? this.lastQuery());
  }

  /** The trace's masks: each query row's first visible key, from the engine. */
  private mask(): KeyMask {
    return { begin: this.trace?.begin ?? 0, firstVisible: this.trace?.firstVisible ?? new Int32Array(0) };
  }

  private cellTip(cell: Cell, event: PointerEvent | MouseEvent) {
    if (cell.key < 0) return;
    const q = this.labels[cell.query];
    const k = this.labels[cell.key];
    const masked = isMasked(this.mask(), cell.query, cell.key);
    const begin = this.trace!.begin;
    showTip(event.clientX, event.clientY, `${q} → ${k}`, [
      ['query', `token ${begin + cell.query} ${q}`, true],
      ['key', `token ${begin + cell.key} ${k}`, true],
      ['weight', masked ? maskedWhy(this.mask(), cell.query, cell.key) : describeProbability(this.weight(cell.query, cell.key)), !masked],
    ]);
  }

  /** One chip per token of the sequence; hovering one shows what that token attends to. */
  private buildFocusChips() {
    const chips = this.labels.map((label, k) => {
      const chip = el('span', 'focus-chip', label);
      chip.dataset.index = String(k);
      chip.addEventListener('pointerenter', () => {
        this.heatmap.highlight({ query: k, key: -1 });
        this.showFocus(k);
      });
      chip.addEventListener('click', () => {
        this.pinned = this.pinned === k ? null : k;
        this.showFocus(this.pinned ?? this.lastQuery());
        if (this.pinned !== null) this.onQuery(this.trace!.begin + this.pinned); // the page's current step
      });
      return chip;
    });
    this.focusChips.replaceChildren(...chips);
  }

  /** Shades every token by how much `query` attends to it. */
  private showFocus(query: number) {
    if (!this.trace) return;
    const pinned = this.pinned === query ? ' · pinned (click again to release)' : '';
    const begin = this.trace.begin;
    this.focusTitle.replaceChildren(
      document.createTextNode('Where '),
      el('span', 'focus-token', this.labels[query]),
      document.createTextNode(` (token ${begin + query}) looks, in head ${this.head} of layer ${this.layer}${pinned}`),
    );
    const mask = this.mask();
    this.focusChips.querySelectorAll<HTMLElement>('.focus-chip').forEach((chip, k) => {
      const masked = isMasked(mask, query, k);
      chip.classList.toggle('future', masked);
      chip.classList.toggle('query', k === query);
      if (k === query) scrollWithin(this.focusChips, chip);
      if (masked) {
        chip.style.background = '';
        chip.style.color = '';
        chip.title = `token ${begin + k}: ${maskedWhy(mask, query, k)}`;
      } else {
        const w = this.weight(query, k);
        chip.style.background = cssColor(w, this.scale);
        chip.style.color = inkOn(w, this.scale);
        chip.title = `token ${begin + k}: ${(w * 100).toFixed(1)}% of token ${begin + query}'s attention`;
      }
    });
  }

  // --- the step inspector: the page's one current step (ui/current-step.ts) ---
  /** Called when a click pins a query row: its position in the sequence. */
  onQuery: (position: number) => void = () => {};
  /** Called when the layer or head shown changes. */
  onView: (layer: number, head: number) => void = () => {};
  private selectedQuery: number | null = null;

  get selectedLayer() {
    return this.layer;
  }

  get selectedHead() {
    return this.head;
  }

  /** The heatmap's canvas (the page exports it as a PNG). */
  get heatmapCanvas(): HTMLCanvasElement {
    return this.heatmap.canvas;
  }

  /** The window row of a sequence position, or null outside the window. */
  private rowOf(position: number): number | null {
    const t = this.trace;
    if (!t) return null;
    const row = position - t.begin;
    return row >= 0 && row < t.size ? row : null;
  }

  /** Pins the query row of `position` (a position of the sequence), as a click on it would; null: none. */
  selectQuery(position: number | null) {
    this.selectedQuery = position;
    if (!this.trace) return;
    this.pinned = position === null ? null : this.rowOf(position);
    this.heatmap.highlight(this.pinned !== null ? { query: this.pinned, key: -1 } : null);
    this.showFocus(this.pinned ?? this.lastQuery());
  }
}

const MiB = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/**
 * Says what the window leaves out, and why: the views show the newest tokens only, and the engine keeps the
 * residual stream (from which it recomputes attention) for as many positions as its memory budget holds.
 */
export function windowNote(trace: AttentionTrace): string {
  const parts: string[] = [];
  if (trace.begin > 0)
    parts.push(`Showing the newest ${trace.size} of ${trace.total} tokens; attention to earlier tokens is left out of the picture, but counted in the head numbers.`);
  if (trace.firstKept > 0) {
    const perToken = trace.bytesPerPosition / 1024;
    parts.push(
      `Attention is recomputed from what the model keeps per token (${perToken.toFixed(perToken < 10 ? 1 : 0)} KiB); ` +
        `within the page's ${MiB(trace.budgetBytes)} budget that is the newest ${trace.total - trace.firstKept} tokens, ` +
        `so tokens before ${trace.firstKept} can no longer be inspected.`,
    );
  }
  return parts.join(' ');
}

/** Scrolls `list` (and only it, never the page) so that `item` is in view. */
function scrollWithin(list: HTMLElement, item: HTMLElement) {
  const top = item.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;
  const bottom = top + item.offsetHeight;
  if (top < list.scrollTop) list.scrollTop = top - 4;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight + 4;
}
