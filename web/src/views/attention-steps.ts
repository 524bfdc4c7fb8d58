// Attention step by step for one query of one head, with the engine's own numbers as the formula goes:
//   q (and, with RoPE, q before the rotation and its angles) · each key k_j → divided by √d_k → masked
//   future → softmax → Σ p_j v_j = the head's output.
// The keys with the largest weights are listed (the rest summed up), so a long sequence stays readable.
import type { StepByStep } from '../protocol-step-inspector';
import { el, tokenLabel } from '../ui/text';

const KEYS_SHOWN = 8;
const VALUES_SHOWN = 8; // numbers of a vector shown before "… n more"

export class AttentionStepsView {
  constructor(private readonly root: HTMLElement) {
    this.empty('Pick a token: its query in the selected head is worked through here, number by number.');
  }

  empty(message: string) {
    this.root.replaceChildren(el('p', 'empty', message));
  }

  show(d: StepByStep) {
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
    // The keys by weight, largest first (ties: earlier first), the top KEYS_SHOWN listed.
    const order = Array.from({ length: d.keys }, (_, j) => j).sort((a, b) => d.probabilities[b] - d.probabilities[a] || a - b);
    const shown = order.slice(0, KEYS_SHOWN);
    const table = el('table', 'steps-table');
    table.dataset.testid = 'attention-steps';
    const header = el('tr');
    for (const h of ['key', 'q · k', `÷ √d_k`, 'softmax p', 'v (first values)']) header.append(el('th', '', h));
    table.append(header);
    for (const j of shown) {
      const tr = el('tr');
      tr.dataset.key = String(j);
      tr.dataset.probability = String(d.probabilities[j]);
      const key = el('td');
      key.append(`${j} `, el('code', '', label(j)));
      tr.append(key, num(d.dots[j]), num(d.scores[j]), num(d.probabilities[j]), el('td', 'steps-vector', vectorText(d.valueRows.subarray(j * d.headDim, (j + 1) * d.headDim))));
      table.append(tr);
    }
    parts.push(table);
    const others = d.keys - shown.length;
    const otherWeight = order.slice(KEYS_SHOWN).reduce((sum, j) => sum + d.probabilities[j], 0);
    const masked = Math.max(0, d.total - d.keys);
    parts.push(
      el(
        'p',
        'note',
        `${others > 0 ? `${others} other ${others === 1 ? 'key holds' : 'keys hold'} ${(otherWeight * 100).toFixed(2)}% of the weight. ` : ''}` +
          `${masked > 0 ? `${masked} later ${masked === 1 ? 'position is' : 'positions are'} masked (score −∞, weight 0): a token cannot see the future.` : 'No later position has been read yet.'}` +
          (d.firstVisibleKey > 0
            ? ` This layer attends through a sliding window: keys 0–${d.firstVisibleKey - 1} are masked too (weight 0), so it sees only tokens ${d.firstVisibleKey}–${d.query}.`
            : ''),
      ),
    );
    parts.push(vectorLine('output = Σ p_j v_j', d.output));
    this.root.replaceChildren(...parts);
  }
}

function num(x: number): HTMLTableCellElement {
  const cell = el('td', 'num', x.toFixed(4));
  cell.title = String(x);
  return cell;
}

function vectorText(v: Float32Array): string {
  const head = Array.from(v.subarray(0, VALUES_SHOWN), (x) => x.toFixed(3)).join(', ');
  return v.length > VALUES_SHOWN ? `[${head}, … ${v.length - VALUES_SHOWN} more]` : `[${head}]`;
}

function vectorLine(name: string, v: Float32Array): HTMLElement {
  const line = el('p', 'steps-line');
  line.append(el('span', 'steps-name', `${name}: `), el('code', 'steps-vector', vectorText(v)));
  return line;
}
