// The sampling pipeline at one step: for the most likely tokens, the raw logit, the logit divided by the
// temperature, the probability at temperature 1, after the temperature, after top-k and after top-p (each cut
// renormalized over what it kept), where top-k and top-p cut, and the token that was drawn. Every
// probability is the worker's (the core's sampling_pipeline); logit ÷ T is that division, shown.
import type { SamplerSettings } from '../protocol';
import type { StepPipeline } from '../protocol-step-inspector';
import { el, tokenLabel } from '../ui/text';

const COLUMNS: { key: 'pTemperature1' | 'pTemperature' | 'pTopK' | 'pTopP'; title: string }[] = [
  { key: 'pTemperature1', title: 'at T = 1' },
  { key: 'pTemperature', title: 'at T' },
  { key: 'pTopK', title: 'after top-k' },
  { key: 'pTopP', title: 'after top-p' },
];

export class PipelineView {
  constructor(private readonly root: HTMLElement) {
    this.empty('Generate some text: each step shows here how the sampler turned the model\'s probabilities into a choice.');
  }

  empty(message: string) {
    this.root.replaceChildren(el('p', 'empty', message));
  }

  show(pipeline: StepPipeline, chosen: number, chosenPiece: Uint8Array, sampler: SamplerSettings | null, stepIndex: number) {
    const head = el('div', 'pipeline-head');
    const chosenToken = pipeline.tokens.find((t) => t.id === chosen);
    const final = chosenToken ? chosenToken.pTopP : null;
    head.append(
      el('span', 'next-step', `Step ${stepIndex + 1} · from position ${pipeline.position}`),
      el('span', 'pipeline-chosen', `drew ${tokenLabel(chosenPiece)}${final !== null ? ` with p = ${percent(final)}` : ' (outside the top shown)'}`),
    );
    const settings = sampler ? `T = ${sampler.temperature}, top-k = ${sampler.topK || 'off'}, top-p = ${sampler.topP >= 1 ? 'off' : sampler.topP}` : '';
    const cuts = el(
      'p',
      'note',
      `${settings}${settings ? ' · ' : ''}top-k keeps ${pipeline.topKKept} of ${pipeline.vocabSize} tokens, top-p keeps ${pipeline.topPKept}.`,
    );
    const table = el('table', 'pipeline-table');
    table.dataset.testid = 'pipeline';
    const header = el('tr');
    header.append(el('th', '', 'token'));
    for (const c of COLUMNS) header.append(el('th', '', c.title));
    table.append(header);
    pipeline.tokens.forEach((t, row) => {
      const tr = el('tr', t.id === chosen ? 'chosen' : '');
      tr.dataset.id = String(t.id);
      const label = el('td', 'pipeline-token');
      label.append(el('code', '', tokenLabel(t.piece)));
      label.title = `id ${t.id} · logit ${t.logit.toFixed(4)}`;
      const temperature = sampler?.temperature ?? 1;
      // The raw logit and the logit divided by T, under the token (the card is narrow): the softmax of the
      // second is the "after temperature" column.
      const logits = el('span', 'pipeline-logit');
      logits.title = 'the logit, and the logit divided by the temperature T';
      const raw = el('span', '', t.logit.toFixed(2));
      raw.dataset.column = 'logit';
      raw.dataset.value = String(t.logit);
      const tempered = el('span', '', temperature > 0 ? (t.logit / temperature).toFixed(2) : '—');
      tempered.dataset.column = 'logitOverT';
      tempered.dataset.value = String(temperature > 0 ? t.logit / temperature : NaN);
      if (temperature === 0) tempered.title = 'T = 0 is greedy: the largest logit is drawn';
      logits.append(raw, el('span', 'pipeline-arrow', ' → '), tempered);
      label.append(logits);
      tr.append(label);
      for (const c of COLUMNS) {
        const p = t[c.key];
        const cell = el('td', 'pipeline-cell');
        cell.dataset.column = c.key;
        cell.dataset.value = String(p);
        const cut = (c.key === 'pTopK' && !t.keptByTopK) || (c.key === 'pTopP' && !t.keptByTopP);
        if (cut) cell.classList.add('cut');
        const track = el('span', 'bar-track');
        const fill = el('span', 'bar-fill');
        fill.style.width = `${Math.max(cut ? 0 : 0.5, p * 100)}%`;
        track.append(fill);
        cell.append(track, el('span', 'bar-value', cut ? 'cut' : percent(p)));
        tr.append(cell);
      }
      table.append(tr);
      // A line under the last token a cut keeps, when it falls within the rows shown.
      const next = pipeline.tokens[row + 1];
      if (next && t.keptByTopK && !next.keptByTopK) tr.classList.add('top-k-cut');
      if (next && t.keptByTopP && !next.keptByTopP) tr.classList.add('top-p-cut');
    });
    const legend = el('p', 'note', 'Under each token: its logit (the model\'s raw score) → the logit ÷ T. Dividing by T sharpens (T < 1) or flattens (T > 1) the softmax that turns them into probabilities. Each probability column renormalizes over what the previous cut kept. A dashed line marks where top-p cuts, a solid one where top-k cuts; the sampler draws from the last column.');
    // On a narrow screen the table scrolls sideways within its own box, its token column staying in place
    // (styles.css: .pipeline-scroll), so the sampled column is one swipe away and still says which token.
    const scroller = el('div', 'pipeline-scroll');
    scroller.append(table);
    this.root.replaceChildren(head, cuts, scroller, legend);
  }
}

function percent(p: number): string {
  if (p >= 0.9995) return '100%';
  if (p >= 0.1) return `${(p * 100).toFixed(1)}%`;
  if (p >= 0.001) return `${(p * 100).toFixed(2)}%`;
  if (p > 0) return '<0.1%';
  return '0';
}
