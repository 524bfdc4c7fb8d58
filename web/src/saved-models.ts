// Models saved in this browser: the training lab's GGUF files, kept so that they survive a reload and load
// again later, offline. They live in the origin-private file system (OPFS), as the hub models' copies do
// (worker/hub-cache.ts), in a folder of their own, one file per model under the name it was saved as. OPFS
// rather than Cache Storage or IndexedDB: a saved model comes back as a File (getFile), which is exactly what a
// dropped file is, so it loads through the dropped-file path and every view follows; no synthetic URL is
// needed, and the bytes are not copied into memory until the engine reads them. The page (not the worker)
// writes them with the asynchronous API (createWritable), which any window may use.
import type { ErrorReport } from './protocol';
import { describeBytes } from './ui/text';

const FOLDER = 'saved-models';

export interface SavedModel {
  name: string;
  bytes: number;
  savedAt: number; // ms since the epoch (the file's lastModified)
}

/** An error worded for a person (the lab and the model panel show its report). */
export class SavedModelError extends Error {
  constructor(readonly report: ErrorReport) {
    super(report.detail ? `${report.title}: ${report.detail}` : report.title);
  }
}

/** The folder's entries (TypeScript's DOM library leaves out the async iterator). */
type Folder = FileSystemDirectoryHandle & { values(): AsyncIterable<FileSystemHandle> };

async function folder(): Promise<Folder> {
  if (!navigator.storage?.getDirectory) {
    throw new SavedModelError({ title: 'This browser cannot save models', detail: 'It offers no origin-private file system.', advice: 'Download the .gguf file instead.' });
  }
  const root = await navigator.storage.getDirectory();
  return (await root.getDirectoryHandle(FOLDER, { create: true })) as Folder;
}

/** The saved models, newest first. */
export async function listSaved(): Promise<SavedModel[]> {
  const dir = await folder();
  const saved: SavedModel[] = [];
  for await (const handle of dir.values()) {
    if (handle.kind !== 'file') continue;
    const file = await (handle as FileSystemFileHandle).getFile();
    saved.push({ name: handle.name, bytes: file.size, savedAt: file.lastModified });
  }
  return saved.sort((a, b) => b.savedAt - a.savedAt || a.name.localeCompare(b.name));
}

/** A name not yet taken: "trained-step-40.gguf", else "trained-step-40 (2).gguf", … */
async function freeName(dir: Folder, wanted: string): Promise<string> {
  const taken = new Set<string>();
  for await (const handle of dir.values()) taken.add(handle.name);
  const dot = wanted.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [wanted.slice(0, dot), wanted.slice(dot)] : [wanted, ''];
  let name = wanted;
  for (let n = 2; taken.has(name); n++) name = `${stem} (${n})${extension}`;
  return name;
}

const isQuota = (error: unknown) => error instanceof DOMException && error.name === 'QuotaExceededError';

function storageFull(bytes: number, free: number | null): SavedModelError {
  return new SavedModelError({
    title: 'Not saved: this browser has no room for the model',
    detail: `It needs ${describeBytes(bytes)}${free === null ? '' : `; the browser allows this site ${describeBytes(Math.max(0, free))} more`}.`,
    advice: 'Delete a saved model (Model panel, "Saved in this browser") or a downloaded hub model, or download the .gguf file instead.',
  });
}

/** Stores the bytes under `wanted` (or a free variant of it); returns the name they were saved as. */
export async function saveModel(wanted: string, bytes: Uint8Array): Promise<string> {
  const dir = await folder();
  const estimate = await navigator.storage.estimate?.().catch(() => null);
  if (estimate?.quota !== undefined && estimate.usage !== undefined && bytes.length > estimate.quota - estimate.usage) {
    throw storageFull(bytes.length, estimate.quota - estimate.usage);
  }
  // Asked, not required: Chromium grants it without a prompt to a site in use, so eviction under storage
  // pressure spares the saved models; refused, they are kept as long as the browser keeps this site's data.
  void navigator.storage.persist?.().catch(() => false);
  const name = await freeName(dir, wanted);
  const handle = await dir.getFileHandle(name, { create: true });
  let writable: FileSystemWritableFileStream | null = null;
  try {
    writable = await handle.createWritable();
    await writable.write(bytes as BufferSource);
    await writable.close(); // the file holds the bytes only from here: a failed write leaves it empty
  } catch (error) {
    await writable?.abort().catch(() => {});
    await dir.removeEntry(name).catch(() => {});
    if (isQuota(error)) throw storageFull(bytes.length, null);
    throw new SavedModelError({ title: 'Not saved', detail: error instanceof Error ? error.message : String(error), advice: 'Download the .gguf file instead.' });
  }
  return name;
}

/** The saved model's bytes as a File, as a dropped file arrives. */
export async function openSaved(name: string): Promise<File> {
  const dir = await folder();
  try {
    return await (await dir.getFileHandle(name)).getFile();
  } catch {
    throw new SavedModelError({ title: `${name} is no longer saved in this browser`, detail: 'It was deleted, or the browser cleared this site\'s data.' });
  }
}

export async function deleteSaved(name: string): Promise<void> {
  const dir = await folder();
  await dir.removeEntry(name).catch(() => {}); // already gone is the outcome asked for
}
