// The sampling controls: temperature, top-k, top-p, seed and max tokens, each a slider paired with an
// exact number field. The sampler's first values are the engine's defaults (the core's SamplerSettings,
// sent by the worker once the engine runs: setDefaults); max tokens starts at 200.
import type { SamplerSettings } from '../protocol';
import { el } from '../ui/text';

export interface GenerationSettings {
  sampler: SamplerSettings;
  maxTokens: number;
}

interface Spec {
  key: 'temperature' | 'topK' | 'topP' | 'seed' | 'maxTokens';
  id: string;
  label: string;
  help: string;
  min: number;
  max: number;
  step: number;
  value?: number; // the default: the engine's for the sampler's settings (setDefaults), the page's for max tokens
  slider?: { min: number; max: number };
  integer?: boolean;
}

const SPECS: Spec[] = [
  { key: 'temperature', id: 'temperature', label: 'Temperature', help: 'Sharpens (below 1) or flattens (above 1) the distribution. 0 picks the most likely token.', min: 0, max: 5, step: 0.05, slider: { min: 0, max: 2 } },
  { key: 'topK', id: 'top-k', label: 'Top-k', help: 'Sample only among the k most likely tokens. 0 turns it off.', min: 0, max: 100000, step: 1, slider: { min: 0, max: 100 }, integer: true },
  { key: 'topP', id: 'top-p', label: 'Top-p', help: 'Sample only among the most likely tokens whose probabilities add up to p. 1 turns it off.', min: 0.01, max: 1, step: 0.01 },
  { key: 'seed', id: 'seed', label: 'Seed', help: 'The random generator’s start: the same seed and settings give the same text.', min: 0, max: 4294967295, step: 1, integer: true },
  { key: 'maxTokens', id: 'max-tokens', label: 'Max tokens', help: 'How many tokens to generate at most (the context length limits it too).', min: 1, max: 512, step: 1, value: 200, slider: { min: 1, max: 512 }, integer: true },
];

export class SamplingControls {
  private readonly inputs = new Map<Spec['key'], { number: HTMLInputElement; range?: HTMLInputElement; spec: Spec }>();

  constructor(
    root: HTMLElement,
    private readonly hint: HTMLElement,
  ) {
    for (const spec of SPECS) root.append(this.row(spec));
    this.updateHint();
  }

  private row(spec: Spec): HTMLElement {
    const row = el('div', 'control');
    const label = el('label', 'control-label', spec.label);
    label.htmlFor = spec.id;
    label.title = spec.help;
    const number = el('input', 'control-number');
    Object.assign(number, { type: 'number', id: spec.id, min: String(spec.min), max: String(spec.max), step: String(spec.step), value: String(spec.value ?? '') });
    number.title = spec.help;
    row.append(label, number);
    let range: HTMLInputElement | undefined;
    if (spec.key === 'seed') {
      const dice = el('button', 'button small', 'New');
      dice.type = 'button';
      dice.id = 'new-seed';
      dice.title = 'Pick a new random seed';
      dice.addEventListener('click', () => {
        number.value = String(Math.floor(Math.random() * 1_000_000));
        this.updateHint();
      });
      row.append(dice);
    } else {
      range = el('input', 'control-range');
      const slider = spec.slider ?? { min: spec.min, max: spec.max };
      Object.assign(range, { type: 'range', id: `${spec.id}-range`, min: String(slider.min), max: String(slider.max), step: String(spec.step), value: String(spec.value ?? slider.min) });
      range.setAttribute('aria-label', spec.label);
      range.addEventListener('input', () => {
        number.value = range!.value;
        this.updateHint();
      });
      number.addEventListener('input', () => {
        range!.value = number.value;
        this.updateHint();
      });
      row.append(range);
    }
    number.addEventListener('change', () => {
      number.value = String(this.read(spec, number));
      if (range) range.value = number.value;
      this.updateHint();
    });
    this.inputs.set(spec.key, { number, range, spec });
    return row;
  }

  private read(spec: Spec, input: HTMLInputElement): number {
    const raw = Number(input.value);
    if (!Number.isFinite(raw) || input.value.trim() === '') return spec.value ?? spec.min;
    const value = Math.min(spec.max, Math.max(spec.min, raw));
    return spec.integer ? Math.round(value) : value;
  }

  private get(key: Spec['key']): number {
    const entry = this.inputs.get(key)!;
    return this.read(entry.spec, entry.number);
  }

  get value(): GenerationSettings {
    return {
      sampler: { temperature: this.get('temperature'), topK: this.get('topK'), topP: this.get('topP'), seed: this.get('seed') },
      maxTokens: this.get('maxTokens'),
    };
  }

  /** The engine's sampler defaults: the controls' values now, and what an emptied field falls back to. */
  setDefaults(defaults: SamplerSettings) {
    for (const [key, value] of Object.entries(defaults) as [keyof SamplerSettings, number][]) {
      const entry = this.inputs.get(key);
      if (entry) entry.spec.value = value;
    }
    this.set(defaults);
  }

  /** Sets some controls (the test hook uses it too). */
  set(values: Partial<Record<Spec['key'], number>>) {
    for (const [key, value] of Object.entries(values) as [Spec['key'], number][]) {
      const entry = this.inputs.get(key);
      if (!entry || value === undefined) continue;
      entry.number.value = String(value);
      if (entry.range) entry.range.value = String(value);
    }
    this.updateHint();
  }

  /** The model's context bounds max tokens. */
  setContextLength(context: number) {
    const entry = this.inputs.get('maxTokens')!;
    entry.spec.max = context;
    entry.number.max = String(context);
    if (entry.range) entry.range.max = String(context);
    if (Number(entry.number.value) > context) this.set({ maxTokens: context });
  }

  setDisabled(disabled: boolean) {
    for (const { number, range } of this.inputs.values()) {
      number.disabled = disabled;
      if (range) range.disabled = disabled;
    }
  }

  private updateHint() {
    const { sampler } = this.value;
    this.hint.textContent =
      sampler.temperature === 0
        ? 'Greedy: every step takes the single most likely token, so top-k, top-p and the seed do not matter.'
        : 'Same model, prompt, settings and seed give the same text every time, here and in the native CLI.';
  }
}
