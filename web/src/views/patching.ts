// Activation patching on the page: two prompts of the same token length side by side (clean and corrupt), a
// target token, and the two maps the engine computes (glassbox/activation_patching.hpp): for every layer and
// position, how much of the clean prediction comes back when the stream entering that layer there is the
// clean run's; and for every head, when its output is. 1 restores the clean run's log-probability of the
// target, 0 changes nothing. The work runs in the worker a few cells at a time, with a progress bar and Cancel.
import type { PatchReply } from '../protocol-circuits';
import { el, fixed, tokenLabel } from '../ui/text';
import { divergingColor } from './attribution';

const CLEAN = 'Lily and Tom went to the park. Tom gave a ball to';
const CORRUPT = 'Tim and Tom went to the park. Tom gave a ball to';

export class PatchingView {
  readonly clean = el('input');
  readonly corrupt = el('input');
  readonly target = el('input');
  private readonly run = el('button', 'button primary', 'Patch');
  private readonly cancel = el('button', 'button', 'Cancel');
  private readonly progress = el('progress');
  private readonly status = el('p', 'patch-status');
  private readonly body = el('div', 'patch-body');
  onRun: () => void = () => {};
  onCancel: () => void = () => {};

  constructor(root: HTMLElement) {
    this.clean.id = 'patch-clean';
    this.corrupt.id = 'patch-corrupt';
    this.target.id = 'patch-target';
    this.clean.value = CLEAN;
    this.corrupt.value = CORRUPT;
    this.target.placeholder = 'the clean run\'s top token';
    this.run.type = this.cancel.type = 'button';
    this.run.id = 'patch-run';
    this.cancel.id = 'patch-cancel';
    this.cancel.hidden = true;
    this.progress.hidden = true;
    this.status.setAttribute('aria-live', 'polite');
    const field = (label: string, input: HTMLInputElement) => {
      const row = el('label', 'patch-field');
      input.type = 'text';
      input.spellcheck = false;
      row.append(el('span', '', label), input);
      return row;
    };
    this.run.addEventListener('click', () => this.onRun());
    this.cancel.addEventListener('click', () => this.onCancel());
    for (const input of [this.clean, this.corrupt, this.target]) input.addEventListener('keydown', (e) => e.key === 'Enter' && !this.run.disabled && this.onRun());
    const actions = el('div', 'patch-actions');
    actions.append(this.run, this.cancel, this.progress);
    root.append(
      el('p', 'muted', 'Two prompts with the same number of tokens: a clean one and a corrupt one that changes a detail. The model reads the corrupt one again with one activation put back from the clean run; the map shows how much of the clean prediction of the target that brings back (1: all of it, 0: nothing).'),
      field('Clean', this.clean),
      field('Corrupt', this.corrupt),
      field('Target token', this.target),
      actions,
      this.status,
      this.body,
    );
  }

  setEnabled(enabled: boolean) {
    this.run.disabled = !enabled;
  }

  working(done: number, total: number) {
    this.run.disabled = true;
    this.cancel.hidden = false;
    this.progress.hidden = false;
    this.progress.max = Math.max(1, total);
    this.progress.value = done;
    this.status.textContent = `Patching: ${done} of ${total} cells…`;
  }

  finished(message: string | null) {
    this.run.disabled = false;
    this.cancel.hidden = true;
    this.progress.hidden = true;
    if (message !== null) this.status.textContent = message;
  }

  show(r: PatchReply) {
    this.finished(`Target “${tokenLabel(r.targetPiece)}”: log p = ${r.metricClean.toFixed(3)} clean, ${r.metricCorrupt.toFixed(3)} corrupt. ${r.runs} forward passes in ${(r.ms / 1000).toFixed(2)} s.`);
    const differs = (p: number) => r.cleanIds[p] !== r.corruptIds[p];
    const residual = el('table', 'patch-grid');
    residual.setAttribute('aria-label', 'Effect of patching the stream entering each layer at each position');
    const header = el('tr');
    header.append(el('th', '', 'stream entering'));
    for (let p = 0; p < r.positions; p++) {
      const th = el('th', differs(p) ? 'patch-differs' : '', tokenLabel(r.cleanPieces[p]));
      th.title = differs(p) ? `position ${p}: clean “${tokenLabel(r.cleanPieces[p])}”, corrupt “${tokenLabel(r.corruptPieces[p])}”` : `position ${p}`;
      header.append(th);
    }
    residual.append(header);
    for (let l = 0; l <= r.layers; l++) {
      const row = el('tr');
      row.append(el('th', '', l < r.layers ? `layer ${l}` : 'after the last'));
      for (let p = 0; p < r.positions; p++) {
        const value = r.residual[l * r.positions + p];
        const cell = el('td', 'patch-cell');
        cell.style.background = divergingColor(value, 1);
        cell.title = `stream entering ${l < r.layers ? `layer ${l}` : 'the final norm'} at position ${p}: effect ${value.toFixed(3)}`;
        cell.dataset.layer = String(l);
        cell.dataset.position = String(p);
        cell.dataset.value = String(value);
        row.append(cell);
      }
      residual.append(row);
    }
    const heads = el('table', 'patch-grid patch-heads');
    heads.setAttribute('aria-label', 'Effect of patching each head\'s output at every position');
    const headHeader = el('tr');
    headHeader.append(el('th', '', 'layer'), ...Array.from({ length: r.heads }, (_, h) => el('th', '', `H${h}`)));
    heads.append(headHeader);
    for (let l = 0; l < r.layers; l++) {
      const row = el('tr');
      row.append(el('th', '', String(l)));
      for (let h = 0; h < r.heads; h++) {
        const value = r.headEffects[l * r.heads + h];
        const cell = el('td', 'patch-cell', fixed(value, 2));
        cell.style.background = divergingColor(value, 1);
        cell.title = `layer ${l} head ${h}: effect ${value.toFixed(3)}`;
        cell.dataset.layer = String(l);
        cell.dataset.head = String(h);
        cell.dataset.value = String(value);
        row.append(cell);
      }
      heads.append(row);
    }
    const wrap = (table: HTMLElement) => {
      const box = el('div', 'patch-scroll');
      box.append(table);
      return box;
    };
    this.body.replaceChildren(
      el('h3', 'flow-subhead', 'The residual stream, layer by layer and position by position'),
      wrap(residual),
      el('h3', 'flow-subhead', 'Each head (its output at every position)'),
      wrap(heads),
      el('p', 'note', 'Red: putting the clean activation back restores the clean prediction (1 = fully); blue: it moves the other way. Marked columns are where the prompts differ.'),
    );
  }
}
