// The model panel's "Saved in this browser": the models the training lab saved (saved-models.ts), one row
// each with its size and when it was saved, and buttons to load it (as a dropped file is loaded) or delete it.
import type { SavedModel } from '../saved-models';
import { describeBytes, el } from '../ui/text';

export class SavedPanel {
  onLoad: (name: string) => void = () => {};
  onDelete: (name: string) => void = () => {};

  constructor(
    private readonly list: HTMLElement,
    private readonly empty: HTMLElement,
  ) {
    this.show([]);
  }

  show(saved: SavedModel[]) {
    this.empty.hidden = saved.length > 0;
    this.list.replaceChildren(...saved.map((model) => this.row(model)));
  }

  /** This browser keeps no files for the page (no origin-private file system): says so where the list would be. */
  unavailable(reason: string) {
    this.list.replaceChildren();
    this.empty.hidden = false;
    this.empty.textContent = `${reason}: models trained here can only be downloaded.`;
  }

  private row({ name, bytes, savedAt }: SavedModel): HTMLElement {
    const row = el('li', 'hub-entry saved-entry');
    row.dataset.name = name;
    const title = el('div', 'hub-title');
    title.append(el('strong', 'hub-name', name));
    row.append(title);
    const when = new Date(savedAt).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
    row.append(el('p', 'hub-state', `${describeBytes(bytes)} · saved ${when}`));
    const actions = el('div', 'hub-actions');
    const load = button('Load', `Load ${name}, saved in this browser`, 'load');
    load.addEventListener('click', () => this.onLoad(name));
    const remove = button('Delete', `Delete ${name} from this browser`, 'delete');
    remove.addEventListener('click', () => this.onDelete(name));
    actions.append(load, remove);
    row.append(actions);
    return row;
  }
}

function button(text: string, label: string, action: string): HTMLButtonElement {
  const b = el('button', 'button small', text) as HTMLButtonElement;
  b.type = 'button';
  b.dataset.savedAction = action;
  b.setAttribute('aria-label', label);
  return b;
}
