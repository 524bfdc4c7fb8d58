// Sentence similarity: the cosine similarity of every two sentences' embeddings, as a heatmap whose cells
// print their values. The grid is one tab stop; the arrow keys move through its cells (Home/End: the row's
// ends), and the cell in focus is named in words under the grid.
import { cssColor, inkOn } from '../ui/colors';
import { el } from '../ui/text';
import type { SimilarityResult } from '../protocol-encoder';

/** A cell's colour: indigo for similar (the attention views' ramp), amber for pointing apart (below 0). */
function cellColors(v: number): { background: string; color: string } {
  if (v >= 0) return { background: cssColor(Math.min(1, v), 'linear'), color: inkOn(Math.min(1, v), 'linear') };
  const t = Math.min(1, -v);
  const mix = (a: number, b: number) => Math.round(a + (b - a) * t);
  return { background: `rgb(${mix(250, 217)} ${mix(250, 119)} ${mix(252, 6)})`, color: t > 0.55 ? '#fff' : '#1b1f2a' };
}

export class SimilarityView {
  private cells: HTMLElement[][] = [];
  private focus = { row: 0, col: 1 };
  private texts: string[] = [];
  private values: number[][] = [];
  private readonly caption = el('p', 'similarity-caption');

  constructor(private readonly root: HTMLElement) {
    this.caption.setAttribute('aria-live', 'polite');
  }

  empty(message: string) {
    this.cells = [];
    this.root.replaceChildren(el('p', 'empty', message));
  }

  show(result: SimilarityResult) {
    const n = result.texts.length;
    this.texts = result.texts;
    this.values = result.similarity;
    if (this.focus.row >= n || this.focus.col >= n) this.focus = { row: 0, col: Math.min(1, n - 1) };
    const grid = el('div', 'similarity-grid');
    grid.setAttribute('role', 'grid');
    grid.setAttribute('aria-label', 'Cosine similarity of every two sentences');
    grid.style.gridTemplateColumns = `minmax(0, max-content) repeat(${n}, var(--similarity-cell))`;
    const header = el('div', 'similarity-row');
    header.setAttribute('role', 'row');
    header.append(Object.assign(el('span', 'similarity-corner'), { role: 'presentation' }));
    for (let b = 0; b < n; b++) {
      const h = el('span', 'similarity-col', String(b + 1));
      h.setAttribute('role', 'columnheader');
      h.title = result.texts[b];
      header.append(h);
    }
    grid.append(header);
    this.cells = [];
    for (let a = 0; a < n; a++) {
      const row = el('div', 'similarity-row');
      row.setAttribute('role', 'row');
      const label = el('span', 'similarity-label');
      label.setAttribute('role', 'rowheader');
      label.append(el('span', 'similarity-number', String(a + 1)), el('span', 'similarity-text', result.texts[a]));
      label.title = `${result.texts[a]} (${result.tokenCounts[a]} tokens)`;
      row.append(label);
      const cells: HTMLElement[] = [];
      for (let b = 0; b < n; b++) {
        const v = result.similarity[a][b];
        const cell = el('span', 'similarity-cell', v.toFixed(2));
        cell.setAttribute('role', 'gridcell');
        cell.tabIndex = -1;
        cell.dataset.row = String(a);
        cell.dataset.col = String(b);
        cell.setAttribute('aria-label', this.describe(a, b));
        Object.assign(cell.style, cellColors(v));
        cell.addEventListener('click', () => this.move(a, b, true));
        cells.push(cell);
        row.append(cell);
      }
      this.cells.push(cells);
      grid.append(row);
    }
    grid.addEventListener('keydown', (event) => this.key(event));
    const note = el('p', 'similarity-note', `${result.pooling === 'cls' ? 'The [CLS] token’s' : 'The mean of the tokens’'} final states, as the model file asks · ${result.embeddings[0]?.length ?? 0} values per embedding`);
    this.root.replaceChildren(el('div', 'similarity-scroll'), this.caption, note);
    this.root.firstElementChild!.append(grid);
    this.move(this.focus.row, this.focus.col, false);
  }

  private describe(a: number, b: number): string {
    return `Sentence ${a + 1} and sentence ${b + 1}: ${this.values[a][b].toFixed(4)}`;
  }

  /** Makes (row, col) the grid's tab stop, focusing it when asked, and says what it is. */
  private move(row: number, col: number, focus: boolean) {
    const n = this.cells.length;
    if (n === 0) return;
    row = Math.max(0, Math.min(n - 1, row));
    col = Math.max(0, Math.min(n - 1, col));
    this.cells[this.focus.row]?.[this.focus.col]?.setAttribute('tabindex', '-1');
    this.cells[this.focus.row]?.[this.focus.col]?.classList.remove('current');
    this.focus = { row, col };
    const cell = this.cells[row][col];
    cell.tabIndex = 0;
    cell.classList.add('current');
    if (focus) cell.focus();
    const quote = (t: string) => `“${t.length > 60 ? `${t.slice(0, 57)}…` : t}”`;
    this.caption.textContent = `${row + 1} ${quote(this.texts[row])} and ${col + 1} ${quote(this.texts[col])}: ${this.values[row][col].toFixed(4)}`;
  }

  private key(event: KeyboardEvent) {
    const { row, col } = this.focus;
    const n = this.cells.length;
    const to: Record<string, [number, number]> = {
      ArrowUp: [row - 1, col],
      ArrowDown: [row + 1, col],
      ArrowLeft: [row, col - 1],
      ArrowRight: [row, col + 1],
      Home: [row, 0],
      End: [row, n - 1],
    };
    const target = to[event.key];
    if (!target) return;
    event.preventDefault();
    this.move(target[0], target[1], true);
  }
}
