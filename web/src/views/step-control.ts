// The step control: a slider over the sequence's positions (←/→ move it when it has focus, as a range input
// does) and a Step button that adds exactly one token to the text.
import type { CurrentStep } from '../ui/current-step';
import { el } from '../ui/text';

export class StepControl {
  readonly slider = el('input');
  readonly stepButton = el('button', 'button', 'Step');
  private readonly label = el('span', 'step-label');
  private readonly follow = el('button', 'button small', 'Follow newest');

  constructor(root: HTMLElement, private readonly current: CurrentStep, onStep: () => void) {
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.max = '0';
    this.slider.id = 'step-slider';
    this.slider.disabled = true;
    this.slider.setAttribute('aria-label', 'Selected position');
    this.slider.addEventListener('input', () => current.select(Number(this.slider.value)));
    this.stepButton.type = 'button';
    this.stepButton.id = 'step';
    this.stepButton.title = 'Generate exactly one more token, continuing the text with the same sampler';
    this.stepButton.addEventListener('click', onStep);
    this.follow.type = 'button';
    this.follow.addEventListener('click', () => current.follow());
    const field = el('label', 'step-field');
    field.append(el('span', 'field-label', 'Position'), this.slider);
    root.replaceChildren(field, this.label, this.follow, this.stepButton);
    current.onChange((position) => this.update(position));
  }

  update(position: number) {
    const c = this.current;
    this.slider.disabled = c.last < 0;
    this.slider.max = String(Math.max(0, c.last));
    this.slider.value = String(Math.max(0, position));
    const step = c.stepIndexAt(position);
    this.label.textContent =
      // Positions count from 0 (as every view names them); "token k of n" counts the tokens themselves.
      c.last < 0 ? 'no tokens yet' : `position ${position} · token ${position + 1} of ${c.last + 1}${step >= 0 ? ` · step ${step + 1}, drew generated token ${step + 1}` : ' · prompt'}`;
    this.follow.hidden = !c.pinned;
  }
}
