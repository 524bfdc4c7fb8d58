// Fill-mask: the text's tokens with each [MASK] marked, and under it, per [MASK], the candidates the model's
// masked-language-model head ranks highest, as bars with their probabilities; with heads switched off, how
// far that moved the prediction.
import type { FillMaskResult } from '../protocol-encoder';
import { el } from '../ui/text';

export class FillMaskView {
  constructor(
    private readonly tokens: HTMLElement,
    private readonly results: HTMLElement,
  ) {}

  empty(message: string) {
    this.tokens.replaceChildren();
    this.results.replaceChildren(el('p', 'empty', message));
  }

  /** `headsOff`: the heads switched off ("layer.head"), named beside each mask's change. */
  show(result: FillMaskResult, headsOff: string[] = []) {
    const maskAt = new Map(result.masks.map((m, i) => [m.position, i]));
    this.tokens.replaceChildren(
      ...result.ids.map((id, position) => {
        const mask = maskAt.get(position);
        const chip = el('span', `chip${mask !== undefined ? ' mask-chip' : ''}`);
        chip.append(el('span', 'chip-text', mask !== undefined ? `[MASK] ${mask + 1}` : result.pieces[position]), el('span', 'chip-id', String(id)));
        chip.title = `position ${position} · id ${id}`;
        return chip;
      }),
    );
    this.results.replaceChildren(
      ...result.masks.map((m, i) => {
        const group = el('section', 'mask-group');
        group.setAttribute('aria-label', `Candidates for [MASK] ${i + 1}`);
        group.append(el('h3', 'mask-heading', `[MASK] ${i + 1} · position ${m.position}`));
        const list = el('ol', 'mask-candidates');
        const top = m.candidates[0]?.probability || 1;
        for (const c of m.candidates) {
          const row = el('li', 'mask-candidate');
          row.dataset.id = String(c.id);
          const bar = el('span', 'mask-bar');
          bar.style.width = `${Math.max(1, (c.probability / top) * 100)}%`;
          row.append(el('span', 'mask-piece', c.piece), el('span', 'mask-track'), el('span', 'mask-probability', `${(c.probability * 100).toFixed(2)}%`));
          row.querySelector('.mask-track')!.append(bar);
          row.title = `id ${c.id} · probability ${c.probability.toFixed(6)}`;
          list.append(row);
        }
        group.append(list);
        // Heads switched off (the roles table's "Off" boxes): what the run with every head on put first.
        if (m.before && m.klBits !== undefined) {
          const first = m.before[0];
          const note = el('p', 'mask-ablation');
          const named = headsOff.length > 0 ? `${headsOff.length === 1 ? 'Head' : 'Heads'} ${headsOff.join(', ')} switched off` : 'Heads switched off';
          note.append(
            el('strong', '', named),
            document.createTextNode(` · KL ${m.klBits.toFixed(3)} bits from every head on, whose first choice was `),
            el('code', '', first?.piece ?? '?'),
            document.createTextNode(` (${((first?.probability ?? 0) * 100).toFixed(2)}%)`),
          );
          group.append(note);
        }
        return group;
      }),
    );
  }
}
