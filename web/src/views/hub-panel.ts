// The hub catalog on the page (hub/catalog.ts): one row per model with its architecture, quantization, size,
// license and a link to its source, whether this browser keeps a copy (finished, or partly downloaded and
// resumable), and buttons to download-and-load, load the kept copy, or delete it. A model past the engine's
// limit (largestUpload(), the core's rule) is marked, and cannot be started, before any byte is downloaded.
import { fileUrl, type HubEntry, HUB_ENTRIES, hubBase, isRealHub, listedSha256, sourceUrl } from '../hub/catalog';
import type { CachedState } from '../protocol';
import { describeBytes, el } from '../ui/text';

export class HubPanel {
  private readonly base = hubBase();
  private cached: Record<string, CachedState> = {};
  private largest = Infinity;
  private busy: string | null = null; // the entry id being loaded
  onLoad: (entry: HubEntry, url: string, sha256: string | undefined) => void = () => {};
  onDelete: (url: string) => void = () => {};
  onCancel: () => void = () => {};

  constructor(private readonly list: HTMLElement) {
    if (!isRealHub(this.base)) {
      // Set by the page's address (?hub=): say so, since the source links still name huggingface.co.
      const note = el('p', 'hub-intro hub-other', `The files come from ${this.base}, set by this page's address, not from huggingface.co.`);
      list.before(note);
    }
    this.render();
  }

  /** Every entry's file URL, for asking the worker what it keeps. */
  get urls(): string[] {
    return HUB_ENTRIES.map((entry) => fileUrl(entry, this.base));
  }

  /** The engine's largest file (EngineReady.largestUpload). */
  setLimit(largest: number) {
    this.largest = largest;
    this.render();
  }

  setCached(cached: Record<string, CachedState>) {
    this.cached = cached;
    this.render();
  }

  setBusy(id: string | null) {
    this.busy = id;
    this.render();
  }

  /** The download under way, in its own row too: the person looks there, not at the top of the panel. */
  showProgress(loaded: number, total: number | null) {
    if (!this.busy) return;
    const row = this.list.querySelector<HTMLElement>(`li[data-id="${this.busy}"]`);
    const bar = row?.querySelector('progress');
    const state = row?.querySelector('.hub-state');
    if (!bar || !state) return;
    if (total) {
      bar.max = total;
      bar.value = Math.min(loaded, total);
    } else bar.removeAttribute('value');
    state.textContent = total ? `${describeBytes(loaded)} of ${describeBytes(total)} (${Math.floor((100 * loaded) / total)}%)` : describeBytes(loaded);
  }

  private render() {
    const focused = (document.activeElement as HTMLElement | null)?.dataset.hubAction;
    this.list.replaceChildren(...HUB_ENTRIES.map((entry) => this.row(entry)));
    // A redraw must not drop the keyboard's place: the same button of the same row takes the focus again, or
    // the row's first button where that one is gone (Download becomes Cancel while it runs, and back).
    if (!focused) return;
    const rowId = focused.slice(0, focused.lastIndexOf(':'));
    (this.list.querySelector<HTMLElement>(`[data-hub-action="${focused}"]`) ?? this.list.querySelector<HTMLElement>(`li[data-id="${rowId}"] button`))?.focus();
  }

  private row(entry: HubEntry): HTMLElement {
    const url = fileUrl(entry, this.base);
    const kept = this.cached[url];
    const tooLarge = entry.bytes > this.largest;
    const row = el('li', 'hub-entry');
    row.dataset.id = entry.id;
    row.dataset.state = tooLarge ? 'too-large' : kept?.complete ? 'cached' : kept ? 'partial' : 'remote';

    const title = el('div', 'hub-title');
    title.append(el('strong', 'hub-name', entry.name));
    const link = el('a', 'hub-source', 'source') as HTMLAnchorElement;
    link.href = sourceUrl(entry);
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    link.title = `${entry.repo} on the Hugging Face hub`;
    title.append(link);
    row.append(title);

    const size = `${entry.exactBytes ? '' : 'about '}${describeBytes(entry.bytes)}`;
    const facts = el('div', 'hub-facts');
    for (const [label, value] of [
      ['architecture', entry.architecture],
      ['quantization', entry.quantization],
      ['size', size],
      ['license', entry.license],
    ]) {
      const fact = el('span', 'hub-fact', value);
      fact.title = label;
      facts.append(fact);
    }
    row.append(facts);
    row.append(el('p', 'hub-description', entry.description));

    const state = el('p', 'hub-state');
    const actions = el('div', 'hub-actions');
    if (this.busy === entry.id) {
      state.textContent = kept?.complete ? 'Loading the saved copy…' : 'Starting the download…';
      const bar = el('progress', 'hub-progress');
      bar.setAttribute('aria-label', `Download of ${entry.name}`);
      row.append(bar);
    } else if (tooLarge) {
      state.textContent = `Too large for this page: ${size} is more than the WebAssembly heap can hold (${describeBytes(this.largest)}).`;
      state.classList.add('too-large');
    } else if (kept?.complete) {
      state.textContent = `Saved in this browser (${describeBytes(kept.bytes)}): loads without the network.`;
    } else if (kept) {
      state.textContent = `Partly downloaded (${describeBytes(kept.bytes)}): the download continues where it stopped.`;
    } else {
      state.textContent = 'Not downloaded.';
    }
    row.append(state);

    if (this.busy === entry.id) {
      const cancel = button('Cancel', `${entry.id}:cancel`);
      cancel.setAttribute('aria-label', `Cancel the download of ${entry.name}`);
      cancel.addEventListener('click', () => this.onCancel());
      actions.append(cancel);
    } else if (!tooLarge) {
      const load = button(kept?.complete ? 'Load' : kept ? 'Resume download' : 'Download and load', `${entry.id}:load`);
      load.setAttribute('aria-label', `${load.textContent} ${entry.name}`);
      load.disabled = this.busy !== null;
      load.addEventListener('click', () => this.onLoad(entry, url, listedSha256(entry, this.base)));
      actions.append(load);
    }
    if (kept && this.busy !== entry.id) {
      const remove = button('Delete saved copy', `${entry.id}:delete`);
      remove.setAttribute('aria-label', `Delete the copy of ${entry.name} saved in this browser`);
      remove.disabled = this.busy === entry.id;
      remove.addEventListener('click', () => this.onDelete(url));
      actions.append(remove);
    }
    if (actions.childElementCount > 0) row.append(actions);
    return row;
  }
}

function button(text: string, action: string): HTMLButtonElement {
  const b = el('button', 'button small', text) as HTMLButtonElement;
  b.type = 'button';
  b.dataset.hubAction = action;
  return b;
}
