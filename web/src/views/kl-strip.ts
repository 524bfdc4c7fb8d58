// KL divergence at every position as a strip of bars, one per position: the height is the KL (scaled to the
// largest), red where the top token changes, the current step outlined; a click selects that step. The
// attention lab (approximate against exact attention) and the ablation panel (ablated against trained) both
// draw their per-position comparison with it.
import { el, tokenLabel } from '../ui/text';

export interface KlByPosition {
  firstPosition: number; // bits[i] is position firstPosition + i
  bits: ArrayLike<number>; // KL(p ‖ q) in bits
  topKept: ArrayLike<boolean | number>; // whether the top token is the same under both
  pieces: ArrayLike<Uint8Array>; // each position's token, for the bar's name (indexed as bits)
}

/** The strip, and a one-line summary (mean KL, positions whose top token is kept). */
export function klStrip(kl: KlByPosition, step: number, onSelect: (position: number) => void): { strip: HTMLElement; summary: string } {
  const strip = el('div', 'kl-strip');
  strip.setAttribute('aria-label', 'KL divergence at each position; a bar that is red marks a position whose top token changes');
  const values = Array.from(kl.bits);
  const largest = Math.max(...values, 1e-9);
  values.forEach((bits, i) => {
    const position = kl.firstPosition + i;
    const kept = Boolean(kl.topKept[i]);
    const bar = el('span', kept ? 'kl-bar' : 'kl-bar kl-bar-changes');
    bar.style.height = `${Math.max(2, (bits / largest) * 100)}%`;
    if (position === step) bar.classList.add('kl-bar-step');
    bar.dataset.position = String(position);
    bar.dataset.kl = String(bits);
    bar.title = `position ${position} “${tokenLabel(kl.pieces[i])}”: KL ${bits.toPrecision(3)} bits${kept ? '' : ' · top token changes'}`;
    bar.addEventListener('click', () => onSelect(position));
    strip.append(bar);
  });
  const kept = values.filter((_, i) => Boolean(kl.topKept[i])).length;
  const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
  const last = kl.firstPosition + values.length - 1;
  const summary = values.length
    ? `Positions ${kl.firstPosition}–${last}: mean KL ${mean.toPrecision(3)} bits, top token kept at ${kept} of ${values.length}.`
    : 'No positions to compare.';
  return { strip, summary };
}
