// The head view (after bertviz): the window's tokens twice, the ones doing the looking (queries) on the
// left and the ones looked at (keys) on the right, with a line from the selected query to every key it
// attends to, one colour per head, opacity = weight. Heads are switched on and off with their buttons.
import type { AttentionBatch } from '../protocol-model-inspector';
import { headColor } from '../ui/palette';
import { el, tokenLabel } from '../ui/text';

const ROW = 20; // pixels per token
const SVG_NS = 'http://www.w3.org/2000/svg';
const MIN_WEIGHT = 0.01; // lines fainter than this are left out

export class HeadView {
  private batch: AttentionBatch | null = null;
  private layer = 0;
  private query = -1; // -1: the newest
  private readonly hidden = new Set<number>();
  private readonly layerSelect = el('select');
  private readonly toggles = el('div', 'head-toggles');
  private readonly body = el('div', 'head-view-body');
  private readonly caption = el('p', 'muted head-view-caption');
  private readonly frame = el('div', 'head-view-frame');
  private readonly controls = el('div', 'head-view-controls');

  constructor(private readonly root: HTMLElement) {
    this.layerSelect.id = 'head-view-layer';
    this.layerSelect.addEventListener('change', () => {
      this.layer = Number(this.layerSelect.value);
      this.draw();
    });
    this.frame.append(this.body);
    const layerLabel = el('label', 'inline-field');
    layerLabel.append(el('span', '', 'Layer'), this.layerSelect);
    this.controls.append(layerLabel, this.toggles);
    this.clear('Generate some text to see where each head of a layer looks, token by token.');
  }

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

  show(batch: AttentionBatch) {
    this.batch = batch;
    if (batch.size === 0) return this.clear('Generate some text to see where each head of a layer looks, token by token.');
    if (this.query >= batch.size) this.query = -1;
    this.draw();
  }

  /** Selects a query token (an index into the window; -1 for the newest). */
  select(query: number) {
    this.query = query;
    this.draw();
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
    const heads = batch.heads;
    const q = this.query < 0 ? n - 1 : this.query;
    const labels = batch.pieces.map(tokenLabel);
    const span = n === batch.total ? `${n} tokens` : `the newest ${n} of ${batch.total} tokens`;
    this.caption.textContent =
      `Layer ${this.layer}, ${span}. Left: the token doing the looking (pick one: click, or ↑/↓); right: the tokens it looks at. ` +
      `Each colour is one head; the stronger the line, the more weight.` + (batch.scaled ? ' Drawn from the ablated run.' : '');

    const height = n * ROW + 8;
    const queries = el('div', 'head-view-column queries');
    const keys = el('div', 'head-view-column keys');
    queries.setAttribute('role', 'listbox');
    queries.setAttribute('aria-label', 'Query tokens');
    for (let i = 0; i < n; i++) {
      const token = el('button', i === q ? 'head-view-token selected' : 'head-view-token', labels[i]);
      token.type = 'button';
      token.dataset.index = String(i);
      token.setAttribute('role', 'option');
      token.setAttribute('aria-selected', String(i === q));
      token.tabIndex = i === q ? 0 : -1;
      token.title = `token ${batch.begin + i}`;
      token.addEventListener('click', () => this.select(i));
      token.addEventListener('keydown', (event) => {
        const step = event.key === 'ArrowUp' ? -1 : event.key === 'ArrowDown' ? 1 : 0;
        if (!step) return;
        event.preventDefault();
        const next = Math.min(n - 1, Math.max(0, i + step));
        this.select(next);
        this.body.querySelector<HTMLButtonElement>(`.head-view-token[data-index="${next}"]`)?.focus();
      });
      queries.append(token);
      const key = el('span', i > q ? 'head-view-key future' : 'head-view-key', labels[i]);
      key.dataset.index = String(i);
      keys.append(key);
    }
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.classList.add('head-view-lines');
    svg.setAttribute('height', String(height));
    svg.setAttribute('viewBox', `0 0 100 ${height}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('aria-hidden', 'true');
    const visible = Array.from({ length: heads }, (_, h) => h).filter((h) => !this.hidden.has(h));
    const spread = Math.min(ROW * 0.7, visible.length * 2.5);
    visible.forEach((h, slot) => {
      const dy = visible.length > 1 ? (slot / (visible.length - 1) - 0.5) * spread : 0;
      const offset = (this.layer * heads + h) * n * n + q * n;
      for (let k = 0; k <= q; k++) {
        const w = batch.matrix[offset + k];
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
        line.dataset.key = String(k);
        line.dataset.weight = String(w);
        svg.append(line);
      }
    });
    // Shade each key by the most any visible head gives it, so the strong targets read at a glance.
    keys.querySelectorAll<HTMLElement>('.head-view-key').forEach((key, k) => {
      if (k > q) return;
      let most = 0;
      for (const h of visible) most = Math.max(most, batch.matrix[(this.layer * heads + h) * n * n + q * n + k]);
      key.style.background = `rgb(79 70 229 / ${(most * 0.35).toFixed(3)})`;
      key.title = `token ${batch.begin + k}: up to ${(most * 100).toFixed(1)}% of the selected token's attention (visible heads)`;
    });
    this.body.style.height = `${height}px`;
    // A refresh while a generation streams redraws the tokens: the keyboard keeps its place.
    const hadFocus = this.body.contains(document.activeElement);
    this.body.replaceChildren(queries, svg, keys);
    if (hadFocus) queries.querySelector<HTMLButtonElement>('.head-view-token.selected')?.focus({ preventScroll: true });
    // Keep the selected query in sight within the frame.
    const top = 4 + q * ROW;
    if (top < this.frame.scrollTop || top + ROW > this.frame.scrollTop + this.frame.clientHeight) this.frame.scrollTop = Math.max(0, top - this.frame.clientHeight / 2);
  }
}
