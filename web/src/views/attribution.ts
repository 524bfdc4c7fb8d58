// Direct logit attribution at the current step: the logit of the token that came next (or of the difference
// between it and another candidate) split into what the embedding, each head, each feed-forward and the biases
// wrote into the stream, through the final norm held at that position's scale. The parts add up to the logit;
// the grid shows them layer by layer, heads then the feed-forward, red where a part pushes the token up and
// blue where it pushes it down. Every number is the engine's (glassbox/logit_attribution.hpp).
import type { AttributionReply } from '../protocol-circuits';
import { el, fixed, inlineField, tokenLabel } from '../ui/text';

/** A candidate to split: an id and its piece. */
export interface Candidate {
  id: number;
  piece: Uint8Array;
}

/** Red for a positive part, blue for a negative one, by its share of the largest magnitude. */
export function divergingColor(value: number, largest: number): string {
  const t = Math.min(1, Math.abs(value) / Math.max(largest, 1e-12));
  return value >= 0 ? `rgb(220 38 38 / ${(t * 0.85).toFixed(3)})` : `rgb(37 99 235 / ${(t * 0.85).toFixed(3)})`;
}

export class AttributionView {
  private readonly tokenSelect = el('select');
  private readonly baselineSelect = el('select');
  private readonly body = el('div', 'attribution-body');
  /** The person chose another token or baseline. */
  onChange: () => void = () => {};

  constructor(root: HTMLElement) {
    this.tokenSelect.id = 'attribution-token';
    this.baselineSelect.id = 'attribution-baseline';
    for (const s of [this.tokenSelect, this.baselineSelect]) s.addEventListener('change', () => this.onChange());
    const controls = el('div', 'attribution-controls');
    controls.append(inlineField('Token', this.tokenSelect), inlineField('minus', this.baselineSelect));
    root.append(
      el('p', 'muted', 'The logit of a token at the current step, split into what each part of the model added to the residual stream there (the final norm held at this position\'s scale, so the parts add up exactly). Choose a second token to split the difference of their logits instead: which heads make the model prefer one over the other.'),
      controls,
      this.body,
    );
    this.empty('Generate some text: the current step\'s logit is split here.');
  }

  empty(message: string) {
    this.body.replaceChildren(el('p', 'empty', message));
  }

  /** The candidates of the step: the first is the token that came next. */
  setCandidates(candidates: Candidate[]) {
    const keep = (select: HTMLSelectElement) => select.value;
    const token = keep(this.tokenSelect), baseline = keep(this.baselineSelect);
    const option = (c: Candidate) => new Option(`“${tokenLabel(c.piece)}” (#${c.id})`, String(c.id));
    this.tokenSelect.replaceChildren(...candidates.map(option));
    this.baselineSelect.replaceChildren(new Option('nothing (the logit itself)', '-1'), ...candidates.map(option));
    if (candidates.some((c) => String(c.id) === token)) this.tokenSelect.value = token;
    if (baseline === '-1' || candidates.some((c) => String(c.id) === baseline)) this.baselineSelect.value = baseline || '-1';
  }

  get token(): number {
    return Number(this.tokenSelect.value);
  }

  get baseline(): number {
    const b = Number(this.baselineSelect.value);
    return b === this.token ? -1 : b;
  }

  show(a: AttributionReply) {
    const what = a.baselinePiece ? `logit(“${tokenLabel(a.tokenPiece)}”) − logit(“${tokenLabel(a.baselinePiece)}”)` : `The logit of “${tokenLabel(a.tokenPiece)}”`;
    const heads = Array.from(a.headParts);
    const mlp = Array.from(a.mlp);
    const largest = Math.max(...heads.map(Math.abs), ...mlp.map(Math.abs), Math.abs(a.embedding), Math.abs(a.bias), 1e-12);
    const summary = el('p', 'attribution-summary');
    summary.dataset.logit = String(a.logit);
    summary.dataset.sum = String(a.sumOfParts);
    summary.append(
      el('strong', '', `${what} at position ${a.position} = ${a.logit.toFixed(3)}`),
      ` = embedding ${signed(a.embedding)} + heads ${signed(heads.reduce((x, y) => x + y, 0))} + feed-forwards ${signed(mlp.reduce((x, y) => x + y, 0))} + biases ${signed(a.bias)} (the parts add up to ${a.sumOfParts.toFixed(3)}).`,
    );

    const table = el('table', 'attribution-grid');
    table.setAttribute('aria-label', `${what}: each head's and each feed-forward's part, layer by layer`);
    const header = el('tr');
    header.append(el('th', '', 'layer'), ...Array.from({ length: a.heads }, (_, h) => el('th', '', `H${h}`)), el('th', 'attribution-mlp', 'FFN'));
    table.append(header);
    for (let l = 0; l < a.layers; l++) {
      const row = el('tr');
      row.append(el('th', '', String(l)));
      for (let h = 0; h <= a.heads; h++) {
        const value = h < a.heads ? heads[l * a.heads + h] : mlp[l];
        const cell = el('td', h < a.heads ? 'attribution-cell' : 'attribution-cell attribution-mlp', fixed(value, 2));
        cell.style.background = divergingColor(value, largest);
        cell.title = `${h < a.heads ? `layer ${l} head ${h}` : `layer ${l} feed-forward`}: ${signed(value, 4)}`;
        cell.dataset.layer = String(l);
        cell.dataset.part = h < a.heads ? `head-${h}` : 'mlp';
        cell.dataset.value = String(value);
        row.append(cell);
      }
      table.append(row);
    }
    // The largest parts, in words.
    const parts = [
      ...heads.map((v, i) => ({ name: `layer ${Math.floor(i / a.heads)} head ${i % a.heads}`, v })),
      ...mlp.map((v, l) => ({ name: `layer ${l} feed-forward`, v })),
      { name: 'the embedding', v: a.embedding },
    ].sort((x, y) => Math.abs(y.v) - Math.abs(x.v));
    const top = el('p', 'note', `Largest parts: ${parts.slice(0, 5).map((p) => `${p.name} ${signed(p.v)}`).join(', ')}.`);
    const scroller = el('div', 'attribution-scroll');
    scroller.append(table);
    this.body.replaceChildren(summary, scroller, top);
  }
}

function signed(x: number, digits = 2): string {
  const text = fixed(x, digits);
  return text.startsWith('-') ? `−${text.slice(1)}` : `+${text}`;
}
