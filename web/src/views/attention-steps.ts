// Attention step by step for one query of one head, with the engine's own numbers as the formula goes:
//   q (and, with RoPE, q before the rotation and its angles) · each key k_j → divided by √d_k → masked
//   future → softmax → Σ p_j v_j = the head's output.
// Every key is listed, heaviest first, in a box that scrolls; the one picked (a click, or ↑/↓ in the list)
// is taken apart dimension by dimension as bertviz's neuron view does: q, k and their product q∘k, whose sum
// is the dot product.
import type { StepByStep } from '../protocol-step-inspector';
import { el, tokenLabel } from '../ui/text';

const KEYS_AT_ONCE = 8; // rows in sight before the list scrolls
const VALUES_SHOWN = 8; // numbers of a vector shown before "… n more"
const ROW_VALUES = 3; // in the key list's k and v columns (the key taken apart shows all of k)

export class AttentionStepsView {
  private picked: number | null = null; // the key taken apart, while the same query is shown
  private shown: StepByStep | null = null;

  constructor(private readonly root: HTMLElement) {
    this.empty('Pick a token: its query in the selected head is worked through here, number by number.');
  }

  empty(message: string) {
    this.root.replaceChildren(el('p', 'empty', message));
  }

  show(d: StepByStep) {
    const same = this.shown && this.shown.layer === d.layer && this.shown.head === d.head && this.shown.query === d.query;
    if (!same) this.picked = null;
    this.shown = d;
    const label = (j: number) => tokenLabel(d.pieces[j] ?? new Uint8Array());
    const title = el('p', 'steps-title');
    title.append(
      el('strong', '', `Layer ${d.layer} · head ${d.head}`),
      ` · query: token ${d.query} `,
      el('code', '', label(d.query)),
      d.kvHead !== d.head ? ` · reads key/value head ${d.kvHead}` : '',
    );
    const formula = el('p', 'steps-formula', `score_j = q · k_j / √${d.headDim} (= ${d.scale.toPrecision(5)}),  p = softmax(score),  output = ${d.headScale !== 1 ? `${d.headScale} × ` : ''}Σ_j p_j v_j`);
    const parts: HTMLElement[] = [title, formula];
    const rope = d.ropeAngles.length > 0;
    if (rope) {
      parts.push(vectorLine('q before RoPE', d.queryUnrotated), vectorLine(`RoPE angles at position ${d.query} (radians)`, d.ropeAngles));
    }
    parts.push(vectorLine(rope ? 'q after RoPE' : 'q', d.q));
    // Every key by weight, largest first (ties: earlier first).
    const order = Array.from({ length: d.keys }, (_, j) => j).sort((a, b) => d.probabilities[b] - d.probabilities[a] || a - b);
    const picked = this.picked !== null && this.picked < d.keys ? this.picked : order[0];
    const table = el('table', 'steps-table');
    table.dataset.testid = 'attention-steps';
    const header = el('tr');
    for (const h of ['key', 'q · k', `÷ √d_k`, 'softmax p', 'k (first values)', 'v (first values)']) header.append(el('th', '', h));
    table.append(header);
    const rows = new Map<number, HTMLTableRowElement>();
    for (const j of order) {
      const tr = el('tr', j === picked ? 'picked' : '');
      tr.dataset.key = String(j);
      tr.dataset.probability = String(d.probabilities[j]);
      if (j < d.firstVisibleKey) tr.classList.add('masked');
      const key = el('td');
      key.append(`${j} `, el('code', '', label(j)));
      tr.append(
        key,
        num(d.dots[j]),
        num(d.scores[j]),
        num(d.probabilities[j]),
        el('td', 'steps-vector', vectorText(d.keyRows.subarray(j * d.headDim, (j + 1) * d.headDim), ROW_VALUES)),
        el('td', 'steps-vector', vectorText(d.valueRows.subarray(j * d.headDim, (j + 1) * d.headDim), ROW_VALUES)),
      );
      tr.addEventListener('click', () => this.pick(j));
      rows.set(j, tr);
      table.append(tr);
    }
    // One tab stop: the list takes ↑/↓ (and Home/End) to move the key taken apart below.
    const box = el('div', 'steps-keys');
    box.tabIndex = 0;
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', `All ${d.keys} keys of this query, heaviest first; arrow keys pick the key taken apart below`);
    box.style.maxHeight = `${(KEYS_AT_ONCE + 1) * 2.2}em`;
    box.append(table);
    box.addEventListener('keydown', (event) => {
      const at = order.indexOf(picked);
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: order.length - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      this.pick(order[Math.max(0, Math.min(order.length - 1, to))], true);
    });
    parts.push(box);
    const masked = Math.max(0, d.total - d.keys);
    parts.push(
      el(
        'p',
        'note',
        `${d.keys} ${d.keys === 1 ? 'key' : 'keys'}, heaviest first. ` +
          `${masked > 0 ? `${masked} later ${masked === 1 ? 'position is' : 'positions are'} masked (score −∞, weight 0): a token cannot see the future.` : 'No later position has been read yet.'}` +
          (d.firstVisibleKey > 0
            ? ` This layer attends through a sliding window: keys 0–${d.firstVisibleKey - 1} are masked too (weight 0), so it sees only tokens ${d.firstVisibleKey}–${d.query}.`
            : ''),
      ),
    );
    parts.push(neuronView(d, picked, label(picked)));
    // The picked row in sight within the list's own box (never by scrolling the page: the step may change
    // while the person reads another card).
    queueMicrotask(() => {
      const row = rows.get(picked);
      if (!row) return;
      const header = table.rows[0]?.offsetHeight ?? 0;
      if (row.offsetTop - header < box.scrollTop) box.scrollTop = row.offsetTop - header;
      else if (row.offsetTop + row.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = row.offsetTop + row.offsetHeight - box.clientHeight;
    });
    parts.push(vectorLine('output = Σ p_j v_j', d.output));
    this.root.replaceChildren(...parts);
    if (this.refocus) {
      this.refocus = false;
      this.root.querySelector<HTMLElement>('.steps-keys')?.focus({ preventScroll: true });
    }
  }

  private refocus = false;

  /** Takes key j apart (redrawing the same query); `keyboard`: the list keeps the focus. */
  private pick(j: number, keyboard = false) {
    this.picked = j;
    this.refocus = keyboard;
    if (this.shown) this.show(this.shown);
  }
}

/**
 * bertviz's neuron view for one key: q, k and q∘k across the head's dimensions as coloured cells (red
 * positive, blue negative, each row scaled to its largest magnitude), so which dimensions make the dot
 * product, and which cancel, can be seen. The products sum to q·k.
 */
function neuronView(d: StepByStep, j: number, keyLabel: string): HTMLElement {
  const q = d.q;
  const k = d.keyRows.subarray(j * d.headDim, (j + 1) * d.headDim);
  const product = q.map((x, i) => x * k[i]);
  const box = el('div', 'neuron-view');
  box.dataset.key = String(j);
  const title = el('p', 'steps-line');
  title.append(el('span', 'steps-name', `q∘k for key ${j} `), el('code', '', keyLabel), `: Σ = ${product.reduce((a, b) => a + b, 0).toFixed(4)} = q · k`);
  box.append(title);
  const grid = el('div', 'neuron-grid');
  grid.style.gridTemplateColumns = `4.5em repeat(${d.headDim}, minmax(3px, 1fr))`;
  for (const [name, values] of [['q', q], ['k', k], ['q∘k', product]] as [string, Float32Array][]) {
    const largest = Math.max(...Array.from(values, Math.abs), 1e-12);
    grid.append(el('span', 'neuron-name', name));
    values.forEach((x, i) => {
      const cell = el('span', 'neuron-cell');
      const t = Math.min(1, Math.abs(x) / largest);
      cell.style.background = x >= 0 ? `rgb(220 38 38 / ${t})` : `rgb(37 99 235 / ${t})`;
      cell.title = `${name}[${i}] = ${x.toPrecision(4)}`;
      grid.append(cell);
    });
  }
  box.append(grid);
  return box;
}

function num(x: number): HTMLTableCellElement {
  const cell = el('td', 'num', x.toFixed(4));
  cell.title = String(x);
  return cell;
}

function vectorText(v: Float32Array, shown = VALUES_SHOWN): string {
  const head = Array.from(v.subarray(0, shown), (x) => x.toFixed(3)).join(', ');
  return v.length > shown ? `[${head}, … ${v.length - shown} more]` : `[${head}]`;
}

function vectorLine(name: string, v: Float32Array): HTMLElement {
  const line = el('p', 'steps-line');
  line.append(el('span', 'steps-name', `${name}: `), el('code', 'steps-vector', vectorText(v)));
  return line;
}
