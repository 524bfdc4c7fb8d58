// ALiBi made visible (Press et al.: "Train short, test long"): no position code is added anywhere; instead
// each head's score of a key d tokens back gets -m·d before the softmax, with a fixed slope m per head. The
// view shows the slopes, and for one head the factor e^(-m·d) that bias puts on each key's weight: a key
// far back is damped, by distance alone, whatever the absolute position. That is why ALiBi extrapolates:
// past the training length no query meets anything new, only distances it has already seen, and the far
// ones are damped even more.
import type { PositionInfo } from '../protocol-model-inspector';
import { cssColor, inkOn } from '../ui/colors';
import { el, inlineField } from '../ui/text';

const SIZE = 24; // positions drawn

export class AlibiView {
  readonly element = el('div', 'positions-block');
  private readonly head = el('select');
  private readonly slopes = el('div', 'alibi-slopes');
  private readonly matrix = el('div', 'positions-plot');
  private info: PositionInfo | null = null;

  constructor() {
    this.head.id = 'alibi-head';
    this.head.addEventListener('change', () => this.drawMatrix());
    const controls = el('div', 'positions-controls');
    controls.append(inlineField('Head', this.head));
    this.element.append(
      el('h3', 'panel-title', 'ALiBi: a bias by distance, one slope per head'),
      el(
        'p',
        'muted',
        'This model adds no position code to its tokens. Each head subtracts m·d from the score of a key d tokens back, with its own slope m: steep heads look near, shallow ones far. ' +
          'The bias depends only on the distance, so past the training length a query meets no position it has not seen, only longer distances, which are damped even more: this is why ALiBi extrapolates.',
      ),
      this.slopes,
      controls,
      this.matrix,
    );
  }

  show(info: PositionInfo) {
    this.info = info;
    const slopes = Array.from(info.alibiSlopes);
    this.head.replaceChildren(...slopes.map((m, h) => new Option(`${h} (m = ${m.toPrecision(3)})`, String(h))));
    const steepest = Math.max(...slopes);
    this.slopes.replaceChildren(
      ...slopes.map((m, h) => {
        const row = el('div', 'alibi-slope');
        row.dataset.head = String(h);
        row.dataset.slope = String(m);
        const bar = el('span', 'alibi-bar');
        bar.style.width = `${(m / steepest) * 100}%`;
        const track = el('span', 'alibi-track');
        track.append(bar);
        // The distance at which the bias has damped a key's weight by e^-1 (before the softmax normalizes).
        row.append(el('span', 'alibi-head', `head ${h}`), track, el('span', 'alibi-value', `m = ${m.toPrecision(3)} · weight × 1/e at ${(1 / m).toPrecision(3)} tokens back`));
        return row;
      }),
    );
    this.drawMatrix();
  }

  /** The chosen head's factor e^(-m·(i-j)) for queries i (rows) and keys j ≤ i (columns). */
  private drawMatrix() {
    if (!this.info) return;
    const h = Number(this.head.value) || 0;
    const m = this.info.alibiSlopes[h];
    const table = el('table', 'alibi-matrix');
    table.setAttribute('aria-label', `e to the minus ${m.toPrecision(3)} times the distance, for ${SIZE} positions`);
    for (let i = 0; i < SIZE; i++) {
      const tr = el('tr');
      for (let j = 0; j < SIZE; j++) {
        const td = el('td');
        if (j <= i) {
          const factor = Math.exp(-m * (i - j));
          td.style.background = cssColor(factor, 'linear');
          td.style.color = inkOn(factor, 'linear');
          td.title = `query ${i}, key ${j}: bias −${(m * (i - j)).toPrecision(3)}, weight × ${factor.toPrecision(3)}`;
        } else td.className = 'masked';
        tr.append(td);
      }
      table.append(tr);
    }
    this.matrix.replaceChildren(table, el('p', 'muted', `Head ${h}: each cell is e^(−m·d), the factor its bias puts on a key d tokens back (rows: queries, columns: keys; the future is masked). Every diagonal is one colour: the bias knows distances only.`));
  }
}
