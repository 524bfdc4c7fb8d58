// Head ablation, live: the heads marked (in the model view, the head table, or here) are switched off,
// scaled, or replaced by their mean output over the text (mean ablation: the head still writes, but the same
// thing at every position, so what is lost is what it says about this position in particular). The worker
// reads the current tokens again with them, and the page shows how the next-token distribution at the
// current step changed (KL divergence in bits, the top token's probability) and the KL at every position,
// while every attention view redraws from the ablated run. A badge says so until Reset.
import type { AblationResult } from '../protocol-model-inspector';
import { setDisabled } from '../ui/keep-focus';
import { el, inlineField, tokenLabel } from '../ui/text';
import type { HeadSelection } from './head-selection';
import { klStrip } from './kl-strip';

export class AblationPanel {
  private readonly list = el('div', 'ablation-list');
  private readonly layerSelect = el('select');
  private readonly applyButton = el('button', 'button primary', 'Apply');
  private readonly resetButton = el('button', 'button', 'Reset');
  private readonly clearButton = el('button', 'button small', 'Clear marks');
  private readonly result = el('div', 'ablation-result');
  private readonly badges: HTMLElement[] = [];
  private enabled = false;
  private hasTokens = false;
  active: number[] | null = null; // the table applied, while an ablation is on
  onApply: (table: number[], meanHeads: number[]) => void = () => {};
  onReset: () => void = () => {};
  /** A bar of the KL strip was clicked: select that step. */
  onSelect: (position: number) => void = () => {};

  constructor(
    root: HTMLElement,
    private readonly selection: HeadSelection,
    badgeSlots: HTMLElement[],
  ) {
    this.applyButton.type = this.resetButton.type = this.clearButton.type = 'button';
    this.applyButton.id = 'ablation-apply';
    this.resetButton.id = 'ablation-reset';
    this.layerSelect.id = 'ablation-layer';
    this.clearButton.id = 'ablation-clear';
    const layerButton = el('button', 'button small', 'Mark every head of the layer');
    layerButton.type = 'button';
    layerButton.id = 'ablation-mark-layer';
    layerButton.addEventListener('click', () => this.selection.selectLayer(Number(this.layerSelect.value)));
    this.clearButton.addEventListener('click', () => this.selection.clear());
    this.applyButton.addEventListener('click', () => this.onApply(this.selection.table(), this.selection.meanHeads()));
    this.resetButton.addEventListener('click', () => this.onReset());
    const quick = el('div', 'ablation-quick');
    quick.append(inlineField('Layer', this.layerSelect), layerButton, this.clearButton);
    const actions = el('div', 'ablation-actions');
    actions.append(this.applyButton, this.resetButton);
    this.result.setAttribute('aria-live', 'polite');
    root.append(
      el('p', 'muted', 'Mark heads with Shift+click (or X) in the model view, with the boxes of the head table, or a whole layer here; set each one\'s scale (0 switches it off) or replace it by its mean output over the text, then Apply: the model reads the current text again with those heads changed.'),
      quick,
      this.list,
      actions,
      this.result,
    );
    for (const slot of badgeSlots) {
      const badge = el('span', 'ablation-badge');
      badge.hidden = true;
      badge.setAttribute('role', 'status');
      slot.append(badge);
      this.badges.push(badge);
    }
    selection.onChange(() => this.renderList());
    this.renderList();
  }

  setModel(layers: number) {
    this.layerSelect.replaceChildren(...Array.from({ length: layers }, (_, i) => new Option(String(i), String(i))));
    this.setActive(null);
    this.result.replaceChildren();
  }

  /** Whether Apply and Reset may run now (a model, no generation under way), and whether there is text. */
  setEnabled(enabled: boolean, hasTokens: boolean) {
    this.enabled = enabled;
    this.hasTokens = hasTokens;
    this.updateButtons();
  }

  private updateButtons() {
    // While Apply or Reset runs, the keyboard's focus waits on the result it is about to show.
    setDisabled(this.applyButton, !this.enabled || !this.hasTokens || this.selection.size === 0, this.result);
    setDisabled(this.resetButton, !this.enabled || this.active === null, this.result);
  }

  private renderList() {
    const entries = this.selection.entries();
    if (entries.length === 0) {
      this.list.replaceChildren(el('p', 'empty small', 'No head marked.'));
    } else {
      this.list.replaceChildren(
        ...entries.map(({ layer, head, scale, mean }) => {
          const row = el('div', 'ablation-row');
          row.dataset.layer = String(layer);
          row.dataset.head = String(head);
          row.dataset.mean = String(mean);
          const name = el('span', 'ablation-name', `layer ${layer} · head ${head}`);
          const slider = el('input');
          slider.type = 'range';
          slider.min = '0';
          slider.max = '1';
          slider.step = '0.05';
          slider.value = String(scale);
          slider.setAttribute('aria-label', `scale of layer ${layer} head ${head}`);
          slider.disabled = mean;
          const value = el('output', 'ablation-scale', mean ? 'mean' : scale === 0 ? 'off' : `× ${scale.toFixed(2)}`);
          slider.addEventListener('input', () => {
            const s = Number(slider.value);
            value.textContent = s === 0 ? 'off' : `× ${s.toFixed(2)}`;
          });
          slider.addEventListener('change', () => this.selection.set(layer, head, Number(slider.value)));
          // Mean ablation: the head's output averaged over the text, written at every position.
          const meanBox = el('input');
          meanBox.type = 'checkbox';
          meanBox.checked = mean;
          meanBox.className = 'ablation-mean-box';
          meanBox.setAttribute('aria-label', `replace layer ${layer} head ${head} by its mean output over the text`);
          meanBox.addEventListener('change', () => this.selection.setMean(layer, head, meanBox.checked));
          const meanLabel = el('label', 'ablation-mean');
          meanLabel.title = 'Replace the head\'s output by its average over the text: it keeps writing, but the same vector at every position.';
          meanLabel.append(meanBox, ' mean');
          const remove = el('button', 'button small', 'Unmark');
          remove.type = 'button';
          remove.setAttribute('aria-label', `unmark layer ${layer} head ${head}`);
          remove.addEventListener('click', () => this.selection.set(layer, head, null));
          row.append(name, slider, value, meanLabel, remove);
          return row;
        }),
      );
    }
    this.updateButtons();
  }

  setActive(table: number[] | null, meanHeads: number[] = []) {
    this.active = table;
    const means = new Set(meanHeads);
    const scaled = table ? table.filter((s, i) => s !== 1 && !means.has(i)).length : 0;
    const parts = [scaled > 0 || means.size === 0 ? `${scaled} head${scaled === 1 ? '' : 's'} scaled` : '', means.size > 0 ? `${means.size} replaced by ${means.size === 1 ? 'its' : 'their'} mean` : ''];
    for (const badge of this.badges) {
      badge.hidden = table === null;
      badge.textContent = `Ablation on: ${parts.filter(Boolean).join(', ')}`;
      badge.title = 'Attention and generation use the ablated model until Reset (in the head ablation card).';
    }
    this.updateButtons();
  }

  showResult(change: AblationResult) {
    const pieces = new Map([
      [change.topBefore, change.pieceBefore],
      [change.topAfter, change.pieceAfter],
    ]);
    const name = (id: number) => {
      const piece = pieces.get(id);
      return piece ? `“${tokenLabel(piece)}”` : `#${id}`;
    };
    const rows: [string, string, string][] = [
      ['KL divergence', `${change.klBits.toPrecision(3)} bits`, 'kl'],
      ['Top token before', `${name(change.topBefore)}: ${(change.pTopBefore * 100).toFixed(1)}% → ${(change.qTopBefore * 100).toFixed(1)}%`, 'top-before'],
      ['Top token after', `${name(change.topAfter)}: ${(change.qTopAfter * 100).toFixed(1)}%`, 'top-after'],
    ];
    const list = el('dl', 'ablation-numbers');
    for (const [label, value, key] of rows) {
      const dd = el('dd', '', value);
      dd.dataset.key = key;
      list.append(el('dt', '', label), dd);
    }
    list.dataset.kl = String(change.klBits);
    const parts: HTMLElement[] = [
      el('p', 'muted', `Next-token distribution at the current step, after position ${change.position} (token ${change.position + 1}), without the ablation (p) and with it (q):`),
      list,
    ];
    if (change.klBitsByPosition.length > 0) {
      const { strip, summary } = klStrip(
        { firstPosition: change.comparedFrom, bits: change.klBitsByPosition, topKept: change.topKeptByPosition, pieces: change.pieces },
        change.position,
        (position) => this.onSelect(position),
      );
      const note = el('p', 'note', `${summary} Click a bar to make it the current step.`);
      note.dataset.key = 'kl-summary';
      parts.push(el('h3', 'ablation-subhead', 'KL at every position'), strip, note);
    }
    this.result.replaceChildren(...parts);
  }

  note(text: string) {
    this.result.replaceChildren(el('p', 'muted', text));
  }
}
