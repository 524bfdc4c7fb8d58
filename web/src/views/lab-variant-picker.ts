// The attention lab's controls: which approximation of attention, its knobs as sliders (W, G, M, R), and which
// head to draw. It only builds the core's spelling of a variant (glassbox/attention_variant.hpp: window:W,
// global-window:G,W, linear, performer:M, low-rank:R); the core checks it and says what is wrong.
import { el, inlineField } from '../ui/text';

type Kind = 'window' | 'global-window' | 'linear' | 'performer' | 'low-rank';
type Knob = 'window' | 'global' | 'features' | 'rank';

interface KindInfo {
  label: string;
  knobs: Knob[];
  explain: string; // what it does and what it costs, in plain words
}

const KINDS: Record<Kind, KindInfo> = {
  window: {
    label: 'Sliding window (Longformer)',
    knobs: ['window'],
    explain: 'Each token looks only at its W newest tokens, itself included. Time and memory grow as n·W instead of n²: anything further back is forgotten.',
  },
  'global-window': {
    label: 'Global tokens + window (BigBird)',
    knobs: ['global', 'window'],
    explain: 'The first G tokens stay visible to every token, plus the W newest. The start of the text (where many heads park their attention) is never forgotten; the middle is.',
  },
  linear: {
    label: 'Linear attention (elu + 1)',
    knobs: [],
    explain: 'softmax(q·k) becomes φ(q)·φ(k) with φ = elu + 1. Keys and values fold into running sums (a d×d matrix per head), so each new token costs the same whatever n. The price: the weights can no longer be sharp.',
  },
  performer: {
    label: 'Random features (Performer, FAVOR+)',
    knobs: ['features'],
    explain: 'M random positive features whose dot products approximate exp(q·k/√d) on average: the same running sums as linear attention. More features come closer to softmax, at more cost per token.',
  },
  'low-rank': {
    label: 'Low rank (Linformer\'s premise)',
    knobs: ['rank'],
    explain: 'Each head\'s attention matrix replaced by its best rank-R approximation (SVD): Linformer bets attention matrices are nearly low-rank. It needs the whole matrix at once, so it cannot write text token by token.',
  },
};

interface Slider {
  row: HTMLElement;
  input: HTMLInputElement;
  output: HTMLOutputElement;
}

/** Performer's feature counts: the slider moves over powers of two. */
const featuresOf = (step: number) => 2 ** step;

export class LabVariantPicker {
  private readonly kind = el('select');
  private readonly layer = el('select');
  private readonly head = el('select');
  private readonly sliders: Record<Knob, Slider>;
  private readonly explanation = el('p', 'lab-explain');
  private readonly oneLayer = el('input');
  /** Any control changed (sliders as they move). */
  onChange: () => void = () => {};

  constructor(root: HTMLElement) {
    this.kind.id = 'lab-kind';
    for (const [value, info] of Object.entries(KINDS)) this.kind.append(new Option(info.label, value));
    this.layer.id = 'lab-layer';
    this.head.id = 'lab-head';
    this.sliders = {
      window: this.slider('window', 'Window W', 1, 64, 8),
      global: this.slider('global', 'Global G', 1, 64, 1),
      features: this.slider('features', 'Features M', 1, 12, 6),
      rank: this.slider('rank', 'Rank R', 1, 64, 4),
    };
    this.oneLayer.type = 'checkbox';
    this.oneLayer.id = 'lab-one-layer';
    for (const control of [this.kind, this.layer, this.head, this.oneLayer]) control.addEventListener('change', () => this.changed());
    const only = el('label', 'lab-only-layer');
    only.append(this.oneLayer, ' only in this layer (the others exact)');
    const row = el('div', 'lab-controls');
    row.append(inlineField('Approximation', this.kind), inlineField('Layer', this.layer), inlineField('Head', this.head), only);
    const knobs = el('div', 'lab-knobs');
    knobs.append(...Object.values(this.sliders).map((s) => s.row));
    root.append(row, knobs, this.explanation);
    this.changed(false);
  }

  private slider(knob: Knob, label: string, min: number, max: number, value: number): Slider {
    const input = el('input');
    input.type = 'range';
    input.id = `lab-${knob}`;
    input.min = String(min);
    input.max = String(max);
    input.value = String(value);
    const output = el('output', 'lab-knob-value');
    output.htmlFor.add(input.id);
    const row = el('label', 'lab-knob');
    row.append(el('span', 'lab-knob-name', label), input, output);
    input.addEventListener('input', () => this.changed());
    return { row, input, output };
  }

  private changed(tell = true) {
    const info = KINDS[this.kind.value as Kind];
    for (const [knob, slider] of Object.entries(this.sliders) as [Knob, Slider][]) {
      slider.row.hidden = !info.knobs.includes(knob);
      const value = Number(slider.input.value);
      slider.output.textContent = String(knob === 'features' ? featuresOf(value) : value);
    }
    this.explanation.textContent = info.explain;
    if (tell) this.onChange();
  }

  /** A model's layers and heads; the head drawn starts as `layer`, `head`. */
  setModel(layers: number, heads: number, layer = 0, head = 0) {
    this.layer.replaceChildren(...Array.from({ length: layers }, (_, i) => new Option(String(i), String(i))));
    this.head.replaceChildren(...Array.from({ length: heads }, (_, i) => new Option(String(i), String(i))));
    this.layer.value = String(Math.min(layer, layers - 1));
    this.head.value = String(Math.min(head, heads - 1));
  }

  /** The text's length: W, G and R reach up to it (the sliders keep a value that still fits). */
  setLength(n: number) {
    for (const knob of ['window', 'global', 'rank'] as Knob[]) {
      const input = this.sliders[knob].input;
      input.max = String(Math.max(1, n));
      if (Number(input.value) > n) input.value = String(Math.max(1, n));
    }
    this.changed(false);
  }

  /** Sets the controls, as the tests and a shared link do: `variant` in the core's spelling. */
  set(kind: Kind, knobs: Partial<Record<Knob, number>>) {
    this.kind.value = kind;
    for (const [knob, value] of Object.entries(knobs) as [Knob, number][]) {
      this.sliders[knob].input.value = String(knob === 'features' ? Math.round(Math.log2(value)) : value);
    }
    this.changed();
  }

  get selectedLayer() {
    return Number(this.layer.value);
  }

  get selectedHead() {
    return Number(this.head.value);
  }

  /** The core's spelling of the chosen variant, confined to the layer drawn when asked (window:8@2). */
  get variant(): string {
    return this.oneLayer.checked ? `${this.kindSpelling}@${this.layer.value}` : this.kindSpelling;
  }

  private get kindSpelling(): string {
    const value = (knob: Knob) => Number(this.sliders[knob].input.value);
    switch (this.kind.value as Kind) {
      case 'window':
        return `window:${value('window')}`;
      case 'global-window':
        return `global-window:${value('global')},${value('window')}`;
      case 'linear':
        return 'linear';
      case 'performer':
        return `performer:${featuresOf(value('features'))}`;
      case 'low-rank':
        return `low-rank:${value('rank')}`;
    }
  }

  setDisabled(disabled: boolean) {
    for (const control of [this.kind, this.layer, this.head, this.oneLayer, ...Object.values(this.sliders).map((s) => s.input)]) control.disabled = disabled;
  }
}
