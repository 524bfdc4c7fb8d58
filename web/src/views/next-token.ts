// The next-token panel: for one generation step, the model's most likely candidates with their
// probabilities (softmax of the logits at temperature 1), the token that was actually chosen marked.
import type { TopToken } from '../protocol';
import { el, tokenLabel } from '../ui/text';

export interface StepDistribution {
  index: number;
  chosen: number;
  chosenPiece: Uint8Array;
  top: TopToken[];
}

export class NextTokenView {
  constructor(private readonly root: HTMLElement) {
    this.empty();
  }

  empty() {
    this.root.replaceChildren(
      el('p', 'empty', 'As the model writes, its top candidates for each step appear here. Select a token to see the step that read it: the candidates for the token after it, and the one chosen.'),
    );
  }

  show(step: StepDistribution, latest: boolean) {
    const header = el('div', 'next-head');
    const chosen = el('span', 'next-chosen');
    chosen.append('chose ', el('code', 'next-chosen-token', tokenLabel(step.chosenPiece)));
    header.append(el('span', 'next-step', `Step ${step.index + 1}${latest ? ' (latest)' : ''}`), chosen);
    const list = el('ol', 'bars');
    const max = Math.max(...step.top.map((t) => t.probability), 1e-9);
    for (const candidate of step.top) {
      const item = el('li', candidate.id === step.chosen ? 'bar-row chosen' : 'bar-row');
      const label = el('span', 'bar-label', tokenLabel(candidate.piece));
      label.title = `id ${candidate.id} · logit ${candidate.logit.toFixed(3)}`;
      const track = el('span', 'bar-track');
      const fill = el('span', 'bar-fill');
      fill.style.width = `${Math.max(0.5, (candidate.probability / max) * 100)}%`;
      track.append(fill);
      item.append(label, track, el('span', 'bar-value', formatProbability(candidate.probability)));
      list.append(item);
    }
    const note = el('p', 'note', 'Probabilities at temperature 1 over the whole vocabulary, before top-k and top-p.');
    this.root.replaceChildren(header, list, note);
  }
}

export function formatProbability(p: number): string {
  if (p >= 0.995) return '100%';
  if (p >= 0.1) return `${(p * 100).toFixed(0)}%`;
  if (p >= 0.001) return `${(p * 100).toFixed(1)}%`;
  return '<0.1%';
}
