// Head ablation, live: the heads marked (in the model view, the head table, or here) are switched off or
// scaled, the worker reads the current tokens again with them, and the page shows how the next-token
// distribution at the current step changed (KL divergence in bits, the top token's probability) while every
// attention view redraws from the ablated run. A badge says so until Reset.
import type { AblationResult } from '../protocol-model-inspector';
import { setDisabled } from '../ui/keep-focus';
import { el, inlineField, tokenLabel } from '../ui/text';
import type { HeadSelection } from './head-selection';

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
  onApply: (table: number[]) => void = () => {};
  onReset: () => void = () => {};

  constructor(
    root: HTMLElement,
    private readonly selection: HeadSelection,
    badgeSlots: HTMLElement[],
  ) {
    this.applyButton.type = this.resetButton.type = this.clearButton.type = 'button';
    this.applyButton.id = 'ablation-apply';
    this.resetButton.id = 'ablation-reset';
    this.layerSelect.id = 'ablation-layer';
    const layerButton = el('button', 'button small', 'Mark every head of the layer');
    layerButton.type = 'button';
    layerButton.id = 'ablation-mark-layer';
    layerButton.addEventListener('click', () => this.selection.selectLayer(Number(this.layerSelect.value)));
    this.clearButton.addEventListener('click', () => this.selection.clear());
    this.applyButton.addEventListener('click', () => this.onApply(this.selection.table()));
    this.resetButton.addEventListener('click', () => this.onReset());
    const quick = el('div', 'ablation-quick');
    quick.append(inlineField('Layer', this.layerSelect), layerButton, this.clearButton);
    const actions = el('div', 'ablation-actions');
    actions.append(this.applyButton, this.resetButton);
    this.result.setAttribute('aria-live', 'polite');
    root.append(
      el('p', 'muted', 'Mark heads with Shift+click (or X) in the model view, with the boxes of the head table, or a whole layer here; set each one\'s scale (0 switches it off), then Apply: the model reads the current text again with those heads scaled.'),
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
        ...entries.map(({ layer, head, scale }) => {
          const row = el('div', 'ablation-row');
          row.dataset.layer = String(layer);
          row.dataset.head = String(head);
          const name = el('span', 'ablation-name', `layer ${layer} · head ${head}`);
          const slider = el('input');
          slider.type = 'range';
          slider.min = '0';
          slider.max = '1';
          slider.step = '0.05';
          slider.value = String(scale);
          slider.setAttribute('aria-label', `scale of layer ${layer} head ${head}`);
          const value = el('output', 'ablation-scale', scale === 0 ? 'off' : `× ${scale.toFixed(2)}`);
          slider.addEventListener('input', () => {
            const s = Number(slider.value);
            value.textContent = s === 0 ? 'off' : `× ${s.toFixed(2)}`;
          });
          slider.addEventListener('change', () => this.selection.set(layer, head, Number(slider.value)));
          const remove = el('button', 'button small', 'Unmark');
          remove.type = 'button';
          remove.setAttribute('aria-label', `unmark layer ${layer} head ${head}`);
          remove.addEventListener('click', () => this.selection.set(layer, head, null));
          row.append(name, slider, value, remove);
          return row;
        }),
      );
    }
    this.updateButtons();
  }

  setActive(table: number[] | null) {
    this.active = table;
    const changed = table ? table.filter((s) => s !== 1).length : 0;
    for (const badge of this.badges) {
      badge.hidden = table === null;
      badge.textContent = `Ablation on: ${changed} head${changed === 1 ? '' : 's'} scaled`;
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
    this.result.replaceChildren(
      el('p', 'muted', `Next-token distribution at the current step, after position ${change.position} (token ${change.position + 1}), without the ablation (p) and with it (q). Move the step and Apply again to measure another:`),
      list,
    );
  }

  note(text: string) {
    this.result.replaceChildren(el('p', 'muted', text));
  }
}
