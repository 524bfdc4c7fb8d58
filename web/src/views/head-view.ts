// The head view (after bertviz): the window's tokens twice, the ones doing the looking (queries) on the
// left and the ones looked at (keys) on the right. Both directions, as bertviz's own: pick a query on the
// left for a line to every key it attends to, or a key on the right for a line from every query that
// attends to it; one colour per head, opacity = weight. Heads are switched on and off with their buttons.
// A decoder's queries see the keys up to their own; an encoder's see the whole text, and a text batched
// beside longer ones is drawn with its padding, which no line reaches.
import type { AttentionBatch } from '../protocol-model-inspector';
import { headColor } from '../ui/palette';
import { el, inlineField, tokenLabel } from '../ui/text';

/** What the head view draws: a decoder's window (AttentionBatch) or an encoder's text (`causal` false). */
export type HeadViewData = Pick<AttentionBatch, 'heads' | 'begin' | 'size' | 'total' | 'matrix' | 'pieces' | 'scaled'> & {
  causal?: boolean; // false: every query sees the whole text (default true)
  length?: number; // an encoder's text in a padded batch: tokens from here to size are padding
};

const ROW = 20; // pixels per token
const SVG_NS = 'http://www.w3.org/2000/svg';
const MIN_WEIGHT = 0.01; // lines fainter than this are left out

export class HeadView {
  private batch: HeadViewData | null = null;
  private layer = 0;
  private query = -1; // -1: the newest
  private side: 'query' | 'key' = 'query'; // which column the picked token is in
  private readonly hidden = new Set<number>();
  private readonly layerSelect = el('select');
  private readonly toggles = el('div', 'head-toggles');
  private readonly body = el('div', 'head-view-body');
  private readonly caption = el('p', 'muted head-view-caption');
  private readonly frame = el('div', 'head-view-frame');
  private readonly controls = el('div', 'head-view-controls');

  /** `idPrefix` names the layer control (`${idPrefix}-layer`); a page with two head views gives each its own. */
  constructor(
    private readonly root: HTMLElement,
    idPrefix = 'head-view',
    private readonly emptyMessage = 'Generate some text to see where each head of a layer looks, token by token.',
  ) {
    this.layerSelect.id = `${idPrefix}-layer`;
    this.layerSelect.addEventListener('change', () => {
      this.layer = Number(this.layerSelect.value);
      this.onLayer(this.layer);
      this.draw();
    });
    this.frame.append(this.body);
    this.controls.append(inlineField('Layer', this.layerSelect), this.toggles);
    this.clear(this.emptyMessage);
  }

  /** Called when a person picks a query token (not when the page selects one) or a layer here. */
  onPickQuery: (query: number) => void = () => {};
  onPickKey: (key: number) => void = () => {};
  onLayer: (layer: number) => void = () => {};

  clear(message: string) {
    this.batch = null;
    this.root.replaceChildren(el('p', 'empty', message));
  }

  setModel(layers: number, heads: number) {
    this.layer = Math.min(this.layer, Math.max(0, layers - 1));
    this.hidden.clear();
    this.layerSelect.replaceChildren(...Array.from({ length: layers }, (_, i) => new Option(`Layer ${i}`, String(i))));
    this.layerSelect.value = String(this.layer);
    this.buildToggles(heads);
  }

  private buildToggles(heads: number) {
    const buttons: HTMLElement[] = [];
    for (let h = 0; h < heads; h++) {
      const button = el('button', 'head-toggle');
      button.type = 'button';
      button.dataset.head = String(h);
      const swatch = el('span', 'head-swatch');
      swatch.style.background = headColor(h);
      button.append(swatch, document.createTextNode(`head ${h}`));
      button.addEventListener('click', () => {
        if (this.hidden.has(h)) this.hidden.delete(h);
        else this.hidden.add(h);
        this.draw();
      });
      buttons.push(button);
    }
    const all = el('button', 'button small', 'All');
    all.type = 'button';
    all.addEventListener('click', () => {
      this.hidden.clear();
      this.draw();
    });
    const none = el('button', 'button small', 'None');
    none.type = 'button';
    none.addEventListener('click', () => {
      for (let h = 0; h < heads; h++) this.hidden.add(h);
      this.draw();
    });
    this.toggles.replaceChildren(...buttons, all, none);
  }

  show(batch: HeadViewData) {
    this.batch = batch;
    if (batch.size === 0) return this.clear(this.emptyMessage);
    if (this.query >= this.tokens(batch)) {
      this.query = -1;
      this.side = 'query';
    }
    this.draw();
  }

  /** Shows `batch` at `layer` (a page whose other views pick the layer). */
  showLayer(layer: number, batch: HeadViewData) {
    this.layer = layer;
    this.layerSelect.value = String(layer);
    this.show(batch);
  }

  /** Selects a query token (an index into the window; -1 for the newest): lines to the keys it looks at. */
  select(query: number) {
    this.query = query;
    this.side = 'query';
    this.draw();
  }

  /** Selects a key token: lines from every query that looks at it. */
  selectKey(key: number) {
    this.query = key;
    this.side = 'key';
    this.draw();
  }

  /** The tokens that are not padding. */
  private tokens(batch: HeadViewData) {
    return batch.length ?? batch.size;
  }

  /** Whether query q sees key k: up to its own in a decoder, the whole text in an encoder. */
  private sees(batch: HeadViewData, q: number, k: number) {
    const n = this.tokens(batch);
    return q < n && k < n && (batch.causal === false || k <= q);
  }

  private draw() {
    const batch = this.batch;
    if (!batch) return;
    if (!this.root.contains(this.frame)) this.root.replaceChildren(this.controls, this.caption, this.frame);
    this.toggles.querySelectorAll<HTMLButtonElement>('.head-toggle').forEach((b) => {
      const on = !this.hidden.has(Number(b.dataset.head));
      b.setAttribute('aria-pressed', String(on));
      b.classList.toggle('off', !on);
    });

    const n = batch.size;
    const tokens = this.tokens(batch);
    const heads = batch.heads;
    const picked = this.query < 0 ? tokens - 1 : this.query;
    const byKey = this.side === 'key';
    const labels = Array.from({ length: n }, (_, i) => (i < tokens ? tokenLabel(batch.pieces[i]) : 'padding'));
    // A window of a longer text follows the selected step: moving the step (its slider, ↑/↓ here) to an
    // earlier token brings the window that holds it. Positions count from 0, as every view names them.
    const span =
      n === batch.total
        ? `${tokens} tokens`
        : `${batch.begin + n === batch.total ? `the newest ${n}` : `positions ${batch.begin}–${batch.begin + n - 1}`} of ${batch.total} tokens`;
    const windowNote = n < batch.total ? ' The window follows the selected step: move the step to see an earlier one.' : '';
    const padding = tokens < n ? ` The text is padded to ${n} tokens in its batch: the grey rows are padding, which nothing attends to.` : '';
    this.caption.textContent =
      `Layer ${this.layer}, ${span}. Left: the tokens doing the looking; right: the tokens looked at. ` +
      (byKey ? 'Showing who looks at the picked token on the right. ' : 'Showing where the picked token on the left looks. ') +
      `Pick a token on either side (click, or ↑/↓ along a side and ←/→ across). Each colour is one head; the stronger the line, the more weight.` +
      padding +
      windowNote +
      (batch.scaled ? ' Drawn from the ablated run.' : '');

    const height = n * ROW + 8;
    const queries = el('div', 'head-view-column queries');
    const keys = el('div', 'head-view-column keys');
    queries.setAttribute('role', 'listbox');
    queries.setAttribute('aria-label', 'Query tokens: where does this one look?');
    keys.setAttribute('role', 'listbox');
    keys.setAttribute('aria-label', 'Key tokens: who looks at this one?');
    const tokenButton = (i: number, side: 'query' | 'key') => {
      const selected = this.side === side && i === picked;
      const isPadding = i >= tokens;
      const base = side === 'query' ? 'head-view-token' : 'head-view-key';
      const hidden = side === 'key' && !byKey && !this.sees(batch, picked, i); // the future of a decoder's query
      const token = el('button', [base, selected ? 'selected' : '', isPadding ? 'padding' : '', hidden ? 'future' : ''].filter(Boolean).join(' '), labels[i]);
      token.type = 'button';
      token.dataset.index = String(i);
      token.setAttribute('role', 'option');
      token.setAttribute('aria-selected', String(selected));
      token.tabIndex = selected ? 0 : -1;
      token.title = isPadding ? 'padding: fills the batch to its longest text; no token looks at it and its own looking is thrown away' : `token ${batch.begin + i}`;
      token.disabled = isPadding;
      const pick = (index: number, to: 'query' | 'key' = side) => {
        if (to === 'key') {
          this.selectKey(index);
          this.onPickKey(index);
        } else {
          this.select(index);
          this.onPickQuery(index);
        }
        this.body.querySelector<HTMLButtonElement>(`.${to === 'query' ? 'head-view-token' : 'head-view-key'}[data-index="${index}"]`)?.focus();
      };
      token.addEventListener('click', () => pick(i));
      // ↑/↓ move along a column, ←/→ cross to the same token in the other one (both directions, by keyboard).
      token.addEventListener('keydown', (event) => {
        const step = event.key === 'ArrowUp' ? -1 : event.key === 'ArrowDown' ? 1 : 0;
        const across = event.key === 'ArrowLeft' ? 'query' : event.key === 'ArrowRight' ? 'key' : null;
        if (!step && !across) return;
        event.preventDefault();
        if (across) return pick(i, across);
        pick(Math.min(tokens - 1, Math.max(0, i + step)));
      });
      return token;
    };
    for (let i = 0; i < n; i++) {
      queries.append(tokenButton(i, 'query'));
      keys.append(tokenButton(i, 'key'));
    }
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.classList.add('head-view-lines');
    svg.setAttribute('height', String(height));
    svg.setAttribute('viewBox', `0 0 100 ${height}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('aria-hidden', 'true');
    const visible = Array.from({ length: heads }, (_, h) => h).filter((h) => !this.hidden.has(h));
    const spread = Math.min(ROW * 0.7, visible.length * 2.5);
    const weight = (h: number, q: number, k: number) => batch.matrix[(this.layer * heads + h) * n * n + q * n + k];
    // The lines of the picked token: to each key it sees, or from each query that sees it.
    const pairs: [number, number][] = [];
    for (let other = 0; other < n; other++) {
      const [q, k] = byKey ? [other, picked] : [picked, other];
      if (this.sees(batch, q, k)) pairs.push([q, k]);
    }
    visible.forEach((h, slot) => {
      const dy = visible.length > 1 ? (slot / (visible.length - 1) - 0.5) * spread : 0;
      for (const [q, k] of pairs) {
        const w = weight(h, q, k);
        if (w < MIN_WEIGHT) continue;
        const line = document.createElementNS(SVG_NS, 'line');
        line.setAttribute('x1', '0');
        line.setAttribute('y1', String(4 + q * ROW + ROW / 2 + dy));
        line.setAttribute('x2', '100');
        line.setAttribute('y2', String(4 + k * ROW + ROW / 2 + dy));
        line.setAttribute('stroke', headColor(h));
        line.setAttribute('stroke-opacity', w.toFixed(3));
        line.setAttribute('stroke-width', '2.5');
        line.setAttribute('vector-effect', 'non-scaling-stroke');
        line.dataset.head = String(h);
        line.dataset.query = String(q);
        line.dataset.key = String(k);
        line.dataset.weight = String(w);
        svg.append(line);
      }
    });
    // Shade the other side's tokens by the most any visible head gives them, so strong links read at a glance.
    const shaded = byKey ? queries : keys;
    for (const [q, k] of pairs) {
      const other = byKey ? q : k;
      let most = 0;
      for (const h of visible) most = Math.max(most, weight(h, q, k));
      const token = shaded.children[other] as HTMLElement;
      token.style.background = `rgb(79 70 229 / ${(most * 0.35).toFixed(3)})`;
      token.title = byKey
        ? `token ${batch.begin + q}: gives up to ${(most * 100).toFixed(1)}% of its attention to the picked token (visible heads)`
        : `token ${batch.begin + k}: up to ${(most * 100).toFixed(1)}% of the picked token's attention (visible heads)`;
    }
    this.body.style.height = `${height}px`;
    // A refresh while a generation streams redraws the tokens: the keyboard keeps its place.
    const hadFocus = this.body.contains(document.activeElement);
    this.body.replaceChildren(queries, svg, keys);
    if (hadFocus) this.body.querySelector<HTMLButtonElement>('button.selected')?.focus({ preventScroll: true });
    // Keep the picked token in sight within the frame.
    const top = 4 + picked * ROW;
    if (top < this.frame.scrollTop || top + ROW > this.frame.scrollTop + this.frame.clientHeight) this.frame.scrollTop = Math.max(0, top - this.frame.clientHeight / 2);
  }
}
