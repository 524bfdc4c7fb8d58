// The feed-forward's neurons at the current step: a layer's most active hidden units (what the down
// projection reads: act(gate) × up in a gated feed-forward), each with where in the text it fires most, so a
// person can guess what a neuron responds to. Every number is the engine's (glassbox/neurons.hpp).
import type { NeuronsReply } from '../protocol-step-inspector';
import { el, fixed, inlineField, tokenLabel } from '../ui/text';
import { divergingColor } from './attribution';

export class NeuronTable {
  private readonly layer = el('select');
  private readonly body = el('div', 'neuron-body');
  onLayer: () => void = () => {};

  constructor(root: HTMLElement) {
    this.layer.id = 'neuron-layer';
    this.layer.addEventListener('change', () => this.onLayer());
    const head = el('div', 'neuron-controls');
    head.append(inlineField('Layer', this.layer));
    root.append(el('h3', 'flow-subhead', 'Feed-forward neurons at the current step'), head, this.body);
  }

  setLayers(layers: number) {
    const keep = this.layer.value; // '' before the first model: then the first layer stays selected
    this.layer.replaceChildren(...Array.from({ length: layers }, (_, i) => new Option(String(i), String(i))));
    if (keep !== '' && Number(keep) < layers) this.layer.value = keep;
  }

  get selectedLayer(): number {
    return Number(this.layer.value || 0);
  }

  empty(message: string) {
    this.body.replaceChildren(el('p', 'empty', message));
  }

  show(r: NeuronsReply) {
    const table = el('table', 'neuron-table');
    const header = el('tr');
    header.append(el('th', '', 'neuron'), el('th', 'num', 'activation'), el('th', 'num', r.gated ? 'gate → act × up' : 'before act'), el('th', '', 'fires most at'));
    table.append(header);
    const largest = Math.max(...r.top.map((t) => Math.abs(t.activation)), 1e-12);
    r.top.forEach((t, i) => {
      const row = el('tr');
      row.dataset.neuron = String(t.neuron);
      const value = el('td', 'num neuron-activation', fixed(t.activation, 3));
      value.style.background = divergingColor(t.activation, largest);
      const parts = el('td', 'num neuron-parts', r.gated ? `${fixed(t.pre, 2)} · ${fixed(t.up, 2)}` : fixed(t.pre, 2));
      const peaks = el('td', 'neuron-peaks');
      for (const p of r.peaks[i]) {
        const chip = el('span', p.position === r.position ? 'neuron-peak here' : 'neuron-peak', `“${tokenLabel(r.pieces[p.position] ?? new Uint8Array())}” ${fixed(p.activation, 2)}`);
        chip.title = `position ${p.position}`;
        peaks.append(chip);
      }
      row.append(el('td', 'neuron-id', `#${t.neuron}`), value, parts, peaks);
      table.append(row);
    });
    const scroller = el('div', 'attribution-scroll');
    scroller.append(table);
    this.body.replaceChildren(
      scroller,
      el('p', 'note', `Layer ${r.layer}'s hidden units with the largest activation at position ${r.position} (of ${r.top.length ? 'its' : 'no'} feed-forward; red positive, blue negative), and the tokens of the text up to the step where each is most active: what a neuron fires on is a first guess at what it detects.`),
    );
  }
}
