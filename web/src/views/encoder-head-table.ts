// An encoder's heads and their roles over the text shown: how many heads have each role, then each head's
// numbers (the engine's EncoderHeadReport), sortable by any column. What bidirectional attention shows is
// here beside the decoders' numbers: weight on [CLS], on [SEP], on the next token, on punctuation. A row
// picks its head in the heatmap above; its "Off" box switches the head off in every task of the page.
import type { HeadRoleThresholds } from '@glassbox/engine';
import type { EncoderHeadReport } from '../protocol-encoder';
import { el } from '../ui/text';
import { focusSortButton, sortableHeader, sortHeads, type SortColumn, type SortOrder } from './sortable-table';

type Column = SortColumn<EncoderHeadReport>;

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const share = (key: string, label: string, title: string, value: (h: EncoderHeadReport) => number): Column => ({ key, label, title, value, format: (h) => pct(value(h)) });

const COLUMNS: Column[] = [
  { key: 'layer', label: 'Layer', title: 'layer, from 0', value: (h) => h.layer, format: (h) => String(h.layer) },
  { key: 'head', label: 'Head', title: 'head, from 0', value: (h) => h.head, format: (h) => String(h.head) },
  { key: 'role', label: 'Role', title: 'the label its numbers suggest (the engine classifies it)', value: (h) => h.role, format: (h) => h.role },
  {
    key: 'entropy',
    label: 'Entropy (bits)',
    title: 'mean entropy of its attention rows, in bits, beside what uniform attention over the text would give',
    value: (h) => h.entropyBits,
    format: (h) => `${h.entropyBits.toFixed(2)} / ${h.uniformEntropyBits.toFixed(2)}`,
  },
  share('sink', '[CLS]', 'mean weight on the first token, [CLS] (a sink)', (h) => h.sink),
  share('separator', '[SEP]', 'mean weight on [SEP]', (h) => h.separator),
  share('previous', 'Previous', 'mean weight on the token just before', (h) => h.previousToken),
  share('next', 'Next', 'mean weight on the token just after', (h) => h.nextToken),
  share('punctuation', 'Punct.', 'mean weight on tokens that are punctuation only', (h) => h.punctuation),
  share('local', 'Local', 'mean weight within two tokens either side, its own included', (h) => h.local),
];

export class EncoderHeadTable {
  private reports: EncoderHeadReport[] = [];
  private order: SortOrder = { key: 'layer', descending: false };
  private selected = { layer: -1, head: -1 };
  private readonly off = new Set<string>(); // "layer.head" of the heads switched off
  private readonly allOn = el('button', 'button small', 'Switch all back on');
  private readonly status = el('p', 'muted encoder-heads-status');
  private readonly summary = el('div', 'role-summary');
  private readonly tableSlot = el('div', 'head-table-slot');
  private readonly help = el('details', 'head-help');
  onPick: (layer: number, head: number) => void = () => {};
  /** Called with the heads switched off (layer, head pairs) whenever a box changes. */
  onSwitchOff: (heads: { layer: number; head: number }[]) => void = () => {};

  constructor(root: HTMLElement) {
    this.allOn.type = 'button';
    this.allOn.hidden = true;
    this.allOn.addEventListener('click', () => {
      this.off.clear();
      this.switched();
    });
    const bar = el('div', 'measure-bar');
    bar.append(this.status, this.allOn);
    root.append(bar, this.help, this.summary, this.tableSlot);
  }

  /** A new model: every head on. */
  reset() {
    this.off.clear();
    this.allOn.hidden = true;
  }

  private switched() {
    this.allOn.hidden = this.off.size === 0;
    this.tableSlot.querySelectorAll<HTMLInputElement>('.ablate-box').forEach((box) => (box.checked = this.off.has(box.dataset.key!)));
    this.onSwitchOff([...this.off].map((key) => ({ layer: Number(key.split('.')[0]), head: Number(key.split('.')[1]) })));
  }

  clear(message: string) {
    this.reports = [];
    this.status.textContent = '';
    this.summary.replaceChildren();
    this.tableSlot.replaceChildren(el('p', 'empty', message));
  }

  show(reports: EncoderHeadReport[], tokens: number, t: HeadRoleThresholds) {
    this.reports = reports;
    this.help.replaceChildren(
      el('summary', '', 'What these numbers mean'),
      el('p', '', 'Each number is a mean over the text\'s rows (one per token doing the looking). Entropy: how spread out a row is, in bits (0: all on one token), beside what uniform attention over the text would give.'),
      el('p', '', `[CLS], [SEP], Previous, Next and Punct.: the weight on the first token ([CLS]), on [SEP], on the token just before, just after, and on tokens that are punctuation only. Local: on the tokens within ${t.localWindow / 2} either side, itself included.`),
      el('p', '', `Roles, first match wins: previous-token or next-token if that weight is ≥ ${pct(t.previousToken)}; sink if [CLS] ≥ ${pct(t.sink)}; separator or punctuation if ≥ ${pct(t.sink)}; local if ≥ ${pct(t.local)}; broad if the entropy is within ${pct(1 - t.broadFraction)} of uniform; else mixed.`),
      el('p', '', 'Off switches a head off: its output is multiplied by 0 before the heads are mixed, in fill-mask, similarity and this card, until you switch it back on.'),
    );
    this.status.textContent = `${reports.length} heads over the ${tokens} tokens of this text` + (tokens < 16 ? ' — a short text: the labels are rough' : '');
    const counts = new Map<string, number>();
    for (const h of reports) counts.set(h.role, (counts.get(h.role) ?? 0) + 1);
    const chips = [...counts].map(([role, count]) => {
      const chip = el('span', 'role-chip');
      chip.dataset.role = role;
      chip.dataset.count = String(count);
      chip.append(el('strong', '', String(count)), document.createTextNode(` ${role}`));
      return chip;
    });
    this.summary.replaceChildren(el('span', 'muted', 'Heads per role: '), ...chips);
    this.render();
  }

  /** Marks the head the other views show. */
  mark(layer: number, head: number) {
    this.selected = { layer, head };
    this.tableSlot.querySelectorAll<HTMLTableRowElement>('tbody tr').forEach((tr) => {
      tr.classList.toggle('selected', Number(tr.dataset.layer) === layer && Number(tr.dataset.head) === head);
    });
  }

  private render() {
    const rows = sortHeads(this.reports, COLUMNS, this.order);
    const table = el('table', 'head-table');
    const offHeader = el('th', '', 'Off');
    offHeader.title = 'switch the head off (its output multiplied by 0) in fill-mask, similarity and attention';
    const thead = sortableHeader(
      COLUMNS,
      this.order,
      (order) => {
        this.order = order;
        this.render();
        focusSortButton(this.tableSlot, order.key);
      },
      [offHeader],
    );
    const body = el('tbody');
    for (const h of rows) {
      const tr = el('tr');
      tr.dataset.layer = String(h.layer);
      tr.dataset.head = String(h.head);
      const box = el('input');
      box.type = 'checkbox';
      box.className = 'ablate-box';
      box.dataset.key = `${h.layer}.${h.head}`;
      box.checked = this.off.has(box.dataset.key);
      box.setAttribute('aria-label', `switch layer ${h.layer} head ${h.head} off`);
      box.addEventListener('change', () => {
        if (box.checked) this.off.add(box.dataset.key!);
        else this.off.delete(box.dataset.key!);
        this.switched();
      });
      const boxCell = el('td');
      boxCell.append(box);
      tr.append(boxCell);
      for (const c of COLUMNS) {
        const td = el('td', c.key === 'role' ? `role role-${h.role}` : 'num');
        if (c.key === 'head') {
          // The head's number is the row's button: a click or Enter shows it above.
          const show = el('button', 'link-button', c.format(h));
          show.type = 'button';
          show.title = `show layer ${h.layer} head ${h.head} in the heatmap and head view`;
          show.addEventListener('click', () => this.onPick(h.layer, h.head));
          td.append(show);
        } else td.textContent = c.format(h);
        td.dataset.column = c.key;
        tr.append(td);
      }
      tr.addEventListener('click', (event) => {
        if (!(event.target instanceof HTMLButtonElement || event.target instanceof HTMLInputElement)) this.onPick(h.layer, h.head);
      });
      body.append(tr);
    }
    table.append(thead, body);
    this.tableSlot.replaceChildren(table);
    this.mark(this.selected.layer, this.selected.head);
  }
}
