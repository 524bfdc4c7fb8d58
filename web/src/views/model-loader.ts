// The model panel: the catalog served beside the page (models/manifest.json), local files by picker or
// drag-and-drop (a model and, for llama2.c checkpoints, its tokenizer), or URLs; a progress bar while bytes
// arrive, with Cancel; the loaded model's shape; errors in plain words. The panel tells the worker whether the
// tokenizer in its field was chosen with the model or before it; the worker decides whether it goes with the
// model (worker/pairing.ts), and the panel says what was done once the model has loaded, with a way out.
import type { ErrorReport, LoadResult, ModelInfo, ModelSource } from '../protocol';
import { ffnName, niceName, placementName } from '../ui/model-names';
import { byId, describeBytes, describeCount, el } from '../ui/text';
import { describeDrop, sortDropped } from './dropped-files';

export interface CatalogFile {
  file: string;
  bytes: number;
}

export interface CatalogEntry {
  id: string;
  name: string;
  description: string;
  format: string;
  license?: string;
  default: boolean;
  model: CatalogFile;
  tokenizer?: CatalogFile;
}

const FORMAT_NAMES: Record<string, string> = { llama2c: 'llama2.c', gguf: 'GGUF', safetensors: 'safetensors' };

/** Reads the catalog the build wrote beside the page. */
export async function fetchCatalog(): Promise<{ entries: CatalogEntry[]; base: URL }> {
  const base = new URL('models/manifest.json', document.baseURI);
  const response = await fetch(base);
  if (!response.ok) throw new Error(`models/manifest.json: the server answered ${response.status}`);
  const manifest = (await response.json()) as { models?: CatalogEntry[] };
  return { entries: manifest.models ?? [], base };
}

export class ModelLoader {
  private readonly select = byId<HTMLSelectElement>('model-select');
  private readonly description = byId('model-description');
  private readonly progress = byId('progress');
  private readonly progressBar = byId('progress-bar');
  private readonly progressLabel = byId('progress-label');
  private readonly error = byId('model-error');
  private readonly info = byId('model-info');
  private readonly modelFile = byId<HTMLInputElement>('model-file');
  private readonly tokenizerFile = byId<HTMLInputElement>('tokenizer-file');
  private readonly loadFiles = byId<HTMLButtonElement>('load-files');
  private readonly dropzone = byId('dropzone');
  private readonly filesNote = byId('files-note');
  private readonly filesNoteText = byId('files-note-text');
  private readonly dropTokenizer = byId<HTMLButtonElement>('drop-tokenizer');
  private readonly dropNote = byId('drop-note');
  private entries: CatalogEntry[] = [];
  private base = new URL(document.baseURI);
  private formats: string[] = [];
  /** A tokenizer was picked (or dropped alone) since the last load: Load files takes it as chosen with the model. */
  private tokenizerPicked = false;
  onLoad: (source: ModelSource) => void = () => {};
  onCancel: () => void = () => {};

  constructor() {
    this.select.addEventListener('change', () => {
      const entry = this.entries.find((e) => e.id === this.select.value);
      this.showDropNote([]);
      if (entry) this.loadEntry(entry);
    });
    const updateButton = () => (this.loadFiles.disabled = !this.modelFile.files?.length);
    this.modelFile.addEventListener('change', updateButton);
    this.tokenizerFile.addEventListener('change', () => (this.tokenizerPicked = true));
    this.loadFiles.addEventListener('click', () => {
      this.showDropNote([]);
      this.loadChosenFiles(!this.tokenizerPicked);
    });
    this.dropTokenizer.addEventListener('click', () => {
      this.tokenizerFile.value = '';
      this.loadChosenFiles(false);
    });
    byId('cancel-load').addEventListener('click', () => this.onCancel());
    byId<HTMLFormElement>('url-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const model = byId<HTMLInputElement>('model-url').value.trim();
      const tokenizer = byId<HTMLInputElement>('tokenizer-url').value.trim();
      if (!model) return;
      this.select.value = '';
      this.showDropNote([]);
      this.onLoad({ kind: 'url', label: decodeURIComponent(model.split('/').pop() || model), model, tokenizer: tokenizer || undefined });
    });
    this.setUpDropzone(updateButton);
  }

  private setUpDropzone(updateButton: () => void) {
    // The whole page accepts drops, so a near miss does not open the file in the browser instead.
    window.addEventListener('dragover', (event) => {
      event.preventDefault();
      this.dropzone.classList.add('dragging');
      (byId('files-source') as HTMLDetailsElement).open = true;
    });
    window.addEventListener('dragleave', (event) => {
      if (!event.relatedTarget) this.dropzone.classList.remove('dragging');
    });
    window.addEventListener('drop', (event) => {
      event.preventDefault();
      this.dropzone.classList.remove('dragging');
      const files = [...(event.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      (byId('files-source') as HTMLDetailsElement).open = true; // the chosen files, and any note, in sight
      const dropped = sortDropped(files);
      const { model, tokenizer } = dropped;
      if (model) this.modelFile.files = fileList(model);
      if (tokenizer) this.tokenizerFile.files = fileList(tokenizer);
      if (tokenizer && !model) this.tokenizerPicked = true;
      this.showDropNote(describeDrop(dropped));
      this.showError(null); // a new drop: what was said about the last load is over
      this.showPairing(null);
      updateButton();
      // Dropped together, the tokenizer is chosen with the model; a model dropped alone meets the one chosen before.
      if (model) this.loadChosenFiles(!tokenizer);
    });
  }

  /** Says what a drop did beyond the load it starts (dropped-files.ts), or hides the note. */
  private showDropNote(lines: string[]) {
    this.dropNote.hidden = lines.length === 0;
    this.dropNote.replaceChildren(...lines.map((line) => el('span', '', line)));
  }

  /**
   * After a load, says which tokenizer went with a model given without one of its own choosing: the one chosen
   * before (with a way to load the model alone instead), or none, the model carrying its own. Null hides it.
   */
  showPairing(result: LoadResult | null) {
    const reused = result?.tokenizer?.chosenBefore ? result.tokenizer.name : null;
    const setAside = result?.setAside;
    this.filesNote.hidden = !reused && !setAside;
    this.dropTokenizer.hidden = !reused;
    this.filesNoteText.textContent = reused
      ? `${result!.label} goes with the tokenizer chosen before, ${reused}.`
      : setAside
        ? `${result!.label} carries its own tokenizer: ${setAside}, chosen before, was not used.`
        : '';
  }

  private loadChosenFiles(tokenizerChosenBefore: boolean) {
    const model = this.modelFile.files?.[0];
    if (!model) return;
    const tokenizer = this.tokenizerFile.files?.[0];
    this.tokenizerPicked = false;
    this.select.value = '';
    this.onLoad({ kind: 'files', label: model.name, model, tokenizer, tokenizerChosenBefore: tokenizer ? tokenizerChosenBefore : undefined });
  }

  setFormats(formats: string[]) {
    this.formats = formats;
  }

  /** Fills the catalog; returns the entry to load first (the default one), if any can be loaded. */
  setCatalog(entries: CatalogEntry[], base: URL): CatalogEntry | undefined {
    this.entries = entries;
    this.base = base;
    this.select.replaceChildren();
    if (entries.length === 0) {
      this.select.append(new Option('No models on this site', ''));
      this.select.disabled = true;
      this.description.textContent = 'This copy of the page has no models beside it. Load your own files or a URL below.';
      return undefined;
    }
    for (const entry of entries) {
      const supported = this.formats.includes(entry.format);
      const option = new Option(supported ? entry.name : `${entry.name} — needs ${FORMAT_NAMES[entry.format] ?? entry.format} support`, entry.id);
      option.disabled = !supported;
      this.select.append(option);
    }
    this.select.append(Object.assign(new Option('Your own files or URL', ''), { disabled: true, hidden: true }));
    this.select.disabled = false;
    const first = entries.find((e) => e.default && this.formats.includes(e.format)) ?? entries.find((e) => this.formats.includes(e.format));
    if (first) this.select.value = first.id;
    return first;
  }

  /** The catalog id of a model loaded from this site's catalog (the URL's hash names it), if it is one. */
  catalogIdOf(source: ModelSource): string | undefined {
    if (source.kind !== 'url') return undefined;
    return this.entries.find((e) => new URL(e.model.file, this.base).href === source.model)?.id;
  }

  loadEntry(entry: CatalogEntry) {
    this.select.value = entry.id;
    this.onLoad({
      kind: 'url',
      label: entry.name,
      format: entry.format,
      model: new URL(entry.model.file, this.base).href,
      tokenizer: entry.tokenizer ? new URL(entry.tokenizer.file, this.base).href : undefined,
    });
  }

  /** Points the catalog select at the loaded model (or at "your own files" when it is not from the catalog). */
  showLoaded(source: ModelSource) {
    const entry = source.kind === 'url' ? this.entries.find((e) => new URL(e.model.file, this.base).href === source.model) : undefined;
    this.select.value = entry ? entry.id : '';
  }

  /** Says what was loaded: the catalog's description, or the files and which tokenizer went with the model. */
  describe({ label, tokenizer }: LoadResult, source: ModelSource) {
    const entry = this.entries.find((e) => e.id === this.select.value && e.name === label);
    if (entry) {
      const size = describeBytes(entry.model.bytes + (entry.tokenizer?.bytes ?? 0));
      this.description.textContent = `${entry.description} ${size}${entry.license ? `, ${entry.license} license` : ''}.`;
      return;
    }
    const from = source.kind === 'files' ? 'from your files' : 'from a URL';
    this.description.textContent = tokenizer ? `${label} with the tokenizer ${tokenizer.name}, ${from}.` : `${label} with its own tokenizer, ${from}.`;
  }

  /** Shows the download's progress, with Cancel. */
  showProgress(file: string, loaded: number, total: number | null) {
    this.progress.hidden = false;
    const fraction = total ? Math.min(1, loaded / total) : null;
    this.progress.classList.toggle('indeterminate', fraction === null);
    this.progressBar.style.width = fraction === null ? '30%' : `${(fraction * 100).toFixed(1)}%`;
    this.progressLabel.textContent = total
      ? `${file} · ${describeBytes(loaded)} of ${describeBytes(total)}`
      : `${file} · ${describeBytes(loaded)}`;
  }

  hideProgress() {
    this.progress.hidden = true;
  }

  /** Shows why a load failed (or hides it); a cancelled load is no error, and is shown as a plain notice. */
  showError(report: ErrorReport | null, note?: string) {
    this.error.hidden = !report;
    if (!report) return this.error.replaceChildren();
    this.error.classList.toggle('error', report.code !== 'cancelled');
    this.error.classList.toggle('info', report.code === 'cancelled');
    const parts: HTMLElement[] = [el('strong', 'notice-title', report.title)];
    if (report.detail) parts.push(el('span', 'notice-detail', report.detail));
    if (report.advice) parts.push(el('span', 'notice-advice', report.advice));
    if (note) parts.push(el('span', 'notice-note', note));
    this.error.replaceChildren(...parts);
  }

  showInfo(info: ModelInfo | null) {
    if (!info) return this.info.replaceChildren();
    const kv = info.kvHeads !== info.heads ? ` (${info.kvHeads} kv)` : '';
    const rows: [string, string][] = [
      ['Parameters', `${describeCount(info.parameters)} · ${describeBytes(info.weightBytes)}`],
      ['Layers', String(info.layers)],
      ['Heads', `${info.heads}${kv} × ${info.headDim}`],
      ['Width', `${info.dim} · FFN ${info.hiddenDim}`],
      ['Vocabulary', info.vocabSize.toLocaleString('en-US')],
      ['Context', `${info.contextLength.toLocaleString('en-US')} tokens`],
      ['Blocks', `${placementName(info.normPlacement, niceName(info.norm))} · ${niceName(info.position)} · ${ffnName(info.activation, info.gatedFfn)}`],
    ];
    const sliding = (info.slidingLayers ?? []).filter(Boolean).length;
    if (sliding > 0) rows.push(['Attention', `${sliding} of ${info.layers} layers see only the last ${info.slidingWindow} tokens (sliding window)`]);
    this.info.replaceChildren(...rows.flatMap(([k, v]) => [el('dt', '', k), el('dd', '', v)]));
    this.info.dataset.parameters = String(info.parameters);
  }
}

function fileList(file: File): FileList {
  const transfer = new DataTransfer();
  transfer.items.add(file);
  return transfer.files;
}
