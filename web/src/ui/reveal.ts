// On the one-column layout (a phone) the panel a tap updates can be a screen below the token tapped: bring
// enough of it into sight, with the least scrolling, that the tap visibly does something. Where the panels
// sit beside the text (wide layouts), nothing moves. The breakpoint is styles.css's one-column layout.
const ONE_COLUMN = '(max-width: 820px)';

export function revealOnNarrow(panel: HTMLElement) {
  if (!window.matchMedia(ONE_COLUMN).matches) return;
  const { top, height } = panel.getBoundingClientRect();
  const wanted = Math.min(height, window.innerHeight / 2); // half a screen of it, or all of a short one
  const below = top + wanted - window.innerHeight;
  const behavior = window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth';
  if (below > 0) window.scrollBy({ top: below, behavior });
  else if (top < 0) window.scrollBy({ top, behavior });
}
