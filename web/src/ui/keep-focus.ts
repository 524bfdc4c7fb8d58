// A button disabled while it has the keyboard's focus drops the focus to <body>, and the next Tab starts over
// at the top of the page. setDisabled parks the focus on a stand-in nearby (the region that shows the
// button's result, focusable by script only) and gives it back when the button is enabled again.
const parkedFrom = new WeakMap<HTMLElement, HTMLButtonElement>();

export function setDisabled(button: HTMLButtonElement, disabled: boolean, standIn: HTMLElement) {
  if (disabled && !button.disabled && document.activeElement === button) {
    if (standIn.tabIndex < 0) standIn.tabIndex = -1;
    standIn.focus({ preventScroll: true });
    parkedFrom.set(standIn, button);
  }
  button.disabled = disabled;
  if (!disabled && document.activeElement === standIn && parkedFrom.get(standIn) === button) {
    parkedFrom.delete(standIn);
    button.focus({ preventScroll: true });
  }
}
