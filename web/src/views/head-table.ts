// Head statistics and roles: "Measure heads" has the worker measure every head over the current tokens
// (one head at a time, with progress), then a table of each head's numbers and role label, sortable by any
// column, and how many heads have each role. The definitions come with their thresholds from the engine.
import type { HeadReport, HeadRoleThresholds, MeasureResult } from '../protocol-model-inspector';
import { setDisabled } from '../ui/keep-focus';
import { el } from '../ui/text';
import type { HeadSelection } from './head-selection';
import { focusSortButton, sortableHeader, sortHeads, type SortColumn, type SortOrder } from './sortable-table';

type Column = SortColumn<HeadReport>;

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const ROLES = ['sink', 'previous-token', 'induction', 'local', 'broad', 'mixed'] as const;

const COLUMNS: Column[] = [
  { key: 'layer', label: 'Layer', title: 'layer, from 0', value: (h) => h.layer, format: (h) => String(h.layer) },
  { key: 'head', label: 'Head', title: 'head, from 0', value: (h) => h.head, format: (h) => String(h.head) },
  { key: 'role', label: 'Role', title: 'the label its numbers suggest', value: (h) => h.role, format: (h) => h.role },
  {
    key: 'entropy',
    label: 'Entropy (bits)',
    title: 'mean entropy of its attention rows, in bits, beside what uniform attention would give',
    value: (h) => h.entropyBits,
    format: (h) => `${h.entropyBits.toFixed(2)} / ${h.uniformEntropyBits.toFixed(2)}`,
  },
  { key: 'sink', label: 'Sink', title: 'mean weight on the first token', value: (h) => h.sink, format: (h) => pct(h.sink) },
  { key: 'previous', label: 'Previous', title: 'mean weight on the token just before', value: (h) => h.previousToken, format: (h) => pct(h.previousToken) },
  { key: 'local', label: 'Local', title: 'mean weight on the last few tokens', value: (h) => h.local, format: (h) => pct(h.local) },
  { key: 'induction', label: 'Induction', title: 'weight on the induction target, on the repeated random-token probe', value: (h) => h.induction, format: (h) => pct(h.induction) },
  { key: 'rank', label: 'Eff. rank', title: 'effective rank of its attention matrix (0.99 of the singular values)', value: (h) => h.effectiveRank, format: (h) => String(h.effectiveRank) },
];

/** Below this many tokens the roles are only rough guesses: the help and the status say so alike. */
const SHORT_TEXT = 64;

export class HeadTable {
  private result: MeasureResult | null = null;
  private order: SortOrder = { key: 'layer', descending: false };
  private readonly measureButton = el('button', 'button primary', 'Measure heads');
  private readonly progress = el('progress', 'measure-progress');
  private readonly status = el('span', 'muted measure-status');
  private readonly summary = el('div', 'role-summary');
  private readonly tableSlot = el('div', 'head-table-slot');
  private readonly help = el('details', 'head-help');
  onMeasure: () => void = () => {};

  constructor(
    root: HTMLElement,
    private readonly selection: HeadSelection,
  ) {
    this.measureButton.type = 'button';
    this.measureButton.id = 'measure-heads';
    this.measureButton.disabled = true;
    this.measureButton.addEventListener('click', () => this.onMeasure());
    this.progress.hidden = true;
    this.status.setAttribute('aria-live', 'polite');
    const bar = el('div', 'measure-bar');
    bar.append(this.measureButton, this.progress, this.status);
    root.append(bar, this.help, this.summary, this.tableSlot);
    this.tableSlot.append(el('p', 'empty', 'Measure the heads to see each one\'s statistics and role over the current text.'));
    selection.onChange(() => this.markSelection());
  }

  setEnabled(enabled: boolean) {
    setDisabled(this.measureButton, !enabled, this.status); // the keyboard's focus waits on the progress
  }

  setThresholds(t: HeadRoleThresholds) {
    this.help.replaceChildren(
      el('summary', '', 'What these numbers mean'),
      el('p', '', `Entropy: how spread out a head's attention is, −Σ p log₂ p per query row, averaged over the rows (0 bits: all on one token); beside it the entropy uniform attention would have on the same rows.`),
      el('p', '', `Sink, previous and local: the mean weight each row puts on the first token, on the token just before it, and on its last ${t.localWindow} tokens (itself included).`),
      el('p', '', `Induction: the model reads ${t.probeLength} random tokens twice; at each token of the second copy, an induction head attends to the token that followed it in the first copy. The score is the mean weight on that token (1: perfect; about 1/position when spread evenly).`),
      el('p', '', `Effective rank: how many different blends of earlier tokens a head really makes over the last ${t.rankWindow} tokens. 1: every token reads the same blend; n: each reads its own. (Precisely: of the attention matrix's singular values s₁ ≥ s₂ ≥ …, the fewest k whose sum holds ${pct(t.effectiveRankThreshold)} of the total.)`),
      el(
        'p',
        '',
        `Roles, first match wins: induction if induction ≥ ${pct(t.induction)}; previous-token if previous ≥ ${pct(t.previousToken)}; sink if sink ≥ ${pct(t.sink)}; ` +
          `local if local ≥ ${pct(t.local)}; broad if the entropy is within ${pct(1 - t.broadFraction)} of uniform; else mixed. On a text shorter than ${SHORT_TEXT} tokens they are rough guesses (the line above says so when it is).`,
      ),
    );
  }

  clear() {
    this.result = null;
    this.summary.replaceChildren();
    this.status.textContent = '';
    this.progress.hidden = true;
    this.tableSlot.replaceChildren(el('p', 'empty', 'Measure the heads to see each one\'s statistics and role over the current text.'));
  }

  showProgress(completed: number, total: number) {
    this.progress.hidden = false;
    this.progress.max = total;
    this.progress.value = completed;
    this.status.textContent = completed < total ? `Measuring… ${completed} of ${total} steps (one per head, then the induction probe)` : 'Measured';
  }

  showError(message: string) {
    this.progress.hidden = true;
    this.status.textContent = message;
  }

  show(result: MeasureResult) {
    this.result = result;
    this.progress.hidden = true;
    this.status.textContent = `${result.heads.length} heads over ${result.tokens} tokens, in ${(result.ms / 1000).toFixed(1)} s` + (result.tokens < SHORT_TEXT ? ' — a short text: the labels are rough' : '');
    const chips = ROLES.map((role) => {
      const chip = el('span', 'role-chip');
      chip.dataset.role = role;
      chip.dataset.count = String(result.roles[role]);
      chip.append(el('strong', '', String(result.roles[role])), document.createTextNode(` ${role}`));
      return chip;
    });
    this.summary.replaceChildren(el('span', 'muted', 'Heads per role: '), ...chips);
    this.renderTable();
  }

  private renderTable() {
    const result = this.result;
    if (!result) return;
    const rows = sortHeads(result.heads, COLUMNS, this.order);
    const table = el('table', 'head-table');
    const thead = sortableHeader(
      COLUMNS,
      this.order,
      (order) => {
        this.order = order;
        this.renderTable();
        focusSortButton(this.tableSlot, order.key);
      },
      [el('th', '', 'Ablate')],
    );
    const body = el('tbody');
    let previousLayer = -1;
    for (const h of rows) {
      const tr = el('tr');
      tr.dataset.layer = String(h.layer);
      tr.dataset.head = String(h.head);
      if (this.order.key === 'layer' && h.layer !== previousLayer && previousLayer >= 0) tr.classList.add('layer-start');
      previousLayer = h.layer;
      const box = el('input');
      box.type = 'checkbox';
      box.className = 'ablate-box';
      box.setAttribute('aria-label', `mark layer ${h.layer} head ${h.head} for ablation`);
      box.checked = this.selection.has(h.layer, h.head);
      box.addEventListener('change', () => this.selection.toggle(h.layer, h.head));
      const cell = el('td');
      cell.append(box);
      tr.append(cell);
      for (const c of COLUMNS) {
        const td = el('td', c.key === 'role' ? `role role-${h.role}` : 'num', c.format(h));
        td.dataset.column = c.key;
        tr.append(td);
      }
      body.append(tr);
    }
    table.append(thead, body);
    this.tableSlot.replaceChildren(table);
  }

  private markSelection() {
    this.tableSlot.querySelectorAll<HTMLTableRowElement>('tbody tr').forEach((tr) => {
      const box = tr.querySelector<HTMLInputElement>('.ablate-box');
      if (box) box.checked = this.selection.has(Number(tr.dataset.layer), Number(tr.dataset.head));
    });
  }
}
