// The model's anatomy: where its parameters are (embeddings, attention, feed-forward, norms, output), the
// bytes one token reads, and the arithmetic of one token at the current sequence length — attention's
// projections, its scores (the part that grows with every token), the feed-forward and the output — updated
// as tokens are generated.
import type { FlopsResult, ModelAnatomy } from '../protocol-model-inspector';
import { describeBytes, el } from '../ui/text';

const number = (n: number) => n.toLocaleString('en-US');
const compact = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} G` : n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k` : String(n));

function bar(fraction: number, className: string) {
  const track = el('span', 'anatomy-track');
  const fill = el('span', `anatomy-fill ${className}`);
  fill.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
  track.append(fill);
  return track;
}

export class AnatomyView {
  private readonly params = el('div', 'anatomy-params');
  private readonly flopsSlot = el('div', 'anatomy-flops');
  flops: FlopsResult | null = null;

  constructor(root: HTMLElement) {
    root.append(this.params, this.flopsSlot);
    this.clear();
  }

  clear() {
    this.flops = null;
    this.params.replaceChildren(el('p', 'empty', 'Load a model to see its anatomy.'));
    this.flopsSlot.replaceChildren();
  }

  setModel(anatomy: ModelAnatomy) {
    const c = anatomy.components;
    const groups: [string, string, { parameters: number; bytes: number }][] = [
      ['Token embedding', 'embed', c.tokenEmbedding],
      ['Position table', 'embed', c.positionEmbedding],
      ['Attention: W_q', 'attn', c.attentionQ],
      ['Attention: W_k', 'attn', c.attentionK],
      ['Attention: W_v', 'attn', c.attentionV],
      ['Attention: W_o', 'attn', c.attentionO],
      ['Feed-forward', 'ffn', c.feedForward],
      ['Norms', 'norm', c.norms],
      ['Biases', 'norm', c.biases],
      ['Output (unembedding)', 'out', c.output],
    ];
    // An encoder's own parts, where the model has them.
    if (c.tokenTypes.parameters > 0) groups.splice(2, 0, ['Token types', 'embed', c.tokenTypes]);
    if (c.maskedLmHead.parameters > 0) groups.push(['MLM head', 'out', c.maskedLmHead]);
    const table = el('table', 'anatomy-table');
    const head = el('tr');
    for (const h of ['Component', 'Parameters', 'Share', 'Bytes']) head.append(el('th', '', h));
    const thead = el('thead');
    thead.append(head);
    const body = el('tbody');
    let sum = 0;
    for (const [name, kind, size] of groups) {
      const tr = el('tr');
      tr.dataset.component = name;
      tr.dataset.parameters = String(size.parameters);
      sum += size.parameters;
      const share = el('td', 'share');
      share.append(bar(size.parameters / (anatomy.parameters || 1), kind), el('span', 'muted', ` ${((size.parameters / (anatomy.parameters || 1)) * 100).toFixed(1)}%`));
      const label = size.parameters === 0 && name.startsWith('Output') ? 'Output: tied to the token embedding' : name;
      tr.append(el('td', '', label), el('td', 'num', number(size.parameters)), share, el('td', 'num', describeBytes(size.bytes)));
      body.append(tr);
    }
    const total = el('tr', 'anatomy-total');
    total.dataset.parameters = String(anatomy.parameters);
    total.dataset.sum = String(sum);
    total.append(el('td', '', 'Total'), el('td', 'num', number(anatomy.parameters)), el('td'), el('td', 'num', describeBytes(anatomy.bytes)));
    body.append(total);
    table.append(thead, body);
    const read = el('p', 'anatomy-read');
    read.dataset.bytes = String(anatomy.bytesReadPerToken);
    read.textContent = `Each new token reads ${describeBytes(anatomy.bytesReadPerToken)} of weights (every layer, the output matrix, one embedding row): on most machines memory, not arithmetic, sets the speed.`;
    this.params.replaceChildren(table, read);
  }

  /** FLOPs of one token at the current sequence length. */
  showFlops(flops: FlopsResult) {
    this.flops = flops;
    const parts: [string, string, number][] = [
      ['Attention projections (Q, K, V, O)', 'attn', flops.attentionProjections],
      ['Attention scores and value sum (grows with n)', 'scores', flops.attentionScores],
      ['Feed-forward', 'ffn', flops.feedForward],
      ['Output', 'out', flops.output],
    ];
    const list = el('div', 'flops-bars');
    list.dataset.sequenceLength = String(flops.sequenceLength);
    for (const [name, kind, value] of parts) {
      const row = el('div', 'flops-row');
      row.dataset.part = kind;
      row.dataset.flops = String(value);
      row.append(el('span', 'flops-name', name), bar(value / (flops.total || 1), kind), el('span', 'num', `${compact(value)}FLOP · ${((value / (flops.total || 1)) * 100).toFixed(1)}%`));
      list.append(row);
    }
    const attention = flops.attentionProjections + flops.attentionScores;
    this.flopsSlot.replaceChildren(
      el('h3', 'panel-title', `Arithmetic of one token at sequence length ${flops.sequenceLength}`),
      list,
      el(
        'p',
        'muted',
        `${compact(flops.total)}FLOP in all (a multiply-add counts 2): attention ${((attention / (flops.total || 1)) * 100).toFixed(1)}%, feed-forward ${((flops.feedForward / (flops.total || 1)) * 100).toFixed(1)}%. ` +
          `The scores part is the only one that grows as the text gets longer: each token compares itself with every earlier one.`,
      ),
    );
  }
}
