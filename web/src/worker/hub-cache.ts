// Downloads of the hub catalog's models (hub/catalog.ts) into the origin-private file system (OPFS): written
// as they arrive, so an interrupted download resumes where it stopped (Range: bytes=N-, answered 206; a server
// that answers 200 instead sends the whole file again, and the copy restarts cleanly). The file's SHA-256 is
// computed on the fly (@noble/hashes, incremental) and checked against the catalog's or the hub's
// (X-Linked-Etag) once the last byte is in; a mismatch deletes the copy. A finished, checked copy is loaded
// from the browser's storage from then on, without asking the server. The worker owns this storage: only a
// dedicated worker may write OPFS files synchronously.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { CachedState } from '../protocol';
import { PageError } from './explain';
import { describeBytes as describe } from '../ui/text';
import { nameOfUrl, type Progress, pump } from './sources';

const FOLDER = 'hub-models';
const PARTIAL = '.part';
const RESUME_ATTEMPTS = 3; // a connection that breaks mid-file is asked for the rest this many times
const READ_BACK = 8 << 20; // the bytes of a partial copy are hashed again in pieces of this size
const REPORT_MS = 40; // progress is posted at most this often: a message per chunk would keep the page busy


/** The part of FileSystemSyncAccessHandle used here (TypeScript's DOM library leaves it to the worker's). */
interface SyncAccess {
  read(buffer: Uint8Array, options: { at: number }): number;
  write(buffer: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

type FileHandle = FileSystemFileHandle & { createSyncAccessHandle(): Promise<SyncAccess>; move(name: string): Promise<void> };

/** A file name for a URL: the whole URL, so copies from another hub (a mirror, the tests' server) stay apart. */
const keyOf = (url: string) => encodeURIComponent(url);

async function folder(): Promise<FileSystemDirectoryHandle> {
  if (!navigator.storage?.getDirectory) throw new PageError('no-storage', FOLDER, 'This browser offers no origin-private file system.');
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(FOLDER, { create: true });
}

async function fileIn(dir: FileSystemDirectoryHandle, name: string): Promise<FileHandle | null> {
  try {
    return (await dir.getFileHandle(name)) as FileHandle;
  } catch {
    return null;
  }
}

/** What the browser keeps of each URL (absent: nothing). */
export async function cachedStates(urls: string[]): Promise<Record<string, CachedState>> {
  const dir = await folder();
  const states: Record<string, CachedState> = {};
  for (const url of urls) {
    const done = await fileIn(dir, keyOf(url));
    const part = done ? null : await fileIn(dir, keyOf(url) + PARTIAL);
    const file = await (done ?? part)?.getFile();
    if (file && (done || file.size > 0)) states[url] = { bytes: file.size, complete: done !== null };
  }
  return states;
}

/** Forgets the copy of a URL, finished or partial. */
export async function deleteCached(url: string): Promise<void> {
  const dir = await folder();
  for (const name of [keyOf(url), keyOf(url) + PARTIAL]) await dir.removeEntry(name).catch(() => {});
}

/**
 * Writes `chunk` at `at`, or says the storage is full: a write the browser's quota cuts short (or refuses)
 * must not leave a copy whose hash, computed from the bytes received, passes while its file is shorter.
 */
function storeAll(access: SyncAccess, chunk: Uint8Array, at: number, name: string) {
  let written = 0;
  try {
    written = access.write(chunk, { at });
  } catch (error) {
    if (!(error instanceof DOMException && error.name === 'QuotaExceededError')) throw error;
  }
  if (written !== chunk.length) throw storageFull(name, at + written, at + chunk.length);
}

const storageFull = (name: string, kept: number, wanted: number) =>
  new PageError('storage-full', name, `${name}: only ${describe(kept)} of the first ${describe(wanted)} could be saved in this browser.`);

/** The SHA-256 a server states for a file: the hub's X-Linked-Etag, or an ETag that is one. */
function statedSha256(headers: Headers): string | null {
  for (const name of ['x-linked-etag', 'etag']) {
    const value = headers.get(name)?.replace(/^W\//, '').replace(/"/g, '').trim().toLowerCase();
    if (value && /^[0-9a-f]{64}$/.test(value)) return value;
  }
  return null;
}

/** The whole file's size from a response that starts at byte `from`, if the server says. */
function totalOf(response: Response, from: number): number | null {
  if (response.headers.get('content-encoding')) return null;
  const range = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
  if (range) return Number(range[1]);
  const length = response.headers.get('content-length');
  return length === null ? null : from + Number(length);
}

export interface Fetched {
  file: File;
  /** The SHA-256 the copy was checked against when it was downloaded; null when no one stated one. */
  checked: string | null;
  fromCache: boolean;
}

/**
 * The file at `url`, from the browser's copy when it has a finished one, else downloaded into it (resuming a
 * partial copy). `largest`: the engine's limit (largestUpload()); a file past it is refused before any byte
 * of it is stored.
 */
export async function fetchToCache(url: string, expectedSha256: string | undefined, largest: number, progress: Progress, signal: AbortSignal): Promise<Fetched> {
  const name = nameOfUrl(url);
  const dir = await folder();
  const done = await fileIn(dir, keyOf(url));
  if (done) return { file: await done.getFile(), checked: null, fromCache: true };

  const partHandle = (await dir.getFileHandle(keyOf(url) + PARTIAL, { create: true })) as FileHandle;
  const access = await partHandle.createSyncAccessHandle();
  let open = true;
  const close = () => {
    if (open) access.close();
    open = false;
  };
  let reported = 0;
  const report = (loaded: number, total: number | null, force = false) => {
    const now = performance.now();
    if (!force && now - reported < REPORT_MS) return;
    reported = now;
    progress(loaded, total);
  };
  try {
    let want = expectedSha256?.toLowerCase() ?? null;
    let have = access.getSize();
    let hash = sha256.create();
    for (let at = 0; at < have; at += READ_BACK) {
      const piece = new Uint8Array(Math.min(READ_BACK, have - at));
      access.read(piece, { at });
      hash.update(piece);
    }
    let total: number | null = null;
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(url, { signal, cache: 'no-store', headers: have > 0 ? { Range: `bytes=${have}-` } : {} });
      if (response.status === 416 && have > 0) {
        // The partial copy is not a prefix the server recognises: start again.
        access.truncate(0);
        have = 0;
        hash = sha256.create();
        continue;
      }
      if (!response.ok) throw new PageError('http-status', name, `The server answered ${response.status} ${response.statusText} for ${url}.`);
      if (!response.body) throw new PageError('http-status', name, `The response for ${url} has no body.`);
      if (response.status !== 206 && have > 0) {
        // The server sends the whole file (it does not do ranges): the copy restarts with it.
        access.truncate(0);
        have = 0;
        hash = sha256.create();
      }
      want ??= statedSha256(response.headers);
      total = totalOf(response, have);
      if (total !== null && total > largest) {
        throw new PageError('too-large', name, `${name} is ${describe(total)}: more than the WebAssembly heap can hold (${describe(largest)}).`);
      }
      report(have, total, true);
      try {
        await pump(response.body, (chunk) => {
          storeAll(access, chunk, have, name);
          hash.update(chunk);
          have += chunk.length;
          report(have, total);
        }, signal);
        break;
      } catch (error) {
        // A connection that breaks mid-file (a TypeError from the stream) is asked for the rest; a
        // cancel, or a connection that keeps breaking, ends the download and keeps what came.
        if (signal.aborted || !(error instanceof TypeError) || attempt + 1 >= RESUME_ATTEMPTS) throw error;
      }
    }
    access.flush();
    if (access.getSize() !== have) throw storageFull(name, access.getSize(), have);
    report(have, total, true);
    if (total !== null && have !== total) {
      throw new PageError('http-status', name, `${name} ended after ${describe(have)} of ${describe(total)}; loading it again resumes the download.`);
    }
    const digest = bytesToHex(hash.digest());
    if (want && digest !== want) {
      close();
      await dir.removeEntry(keyOf(url) + PARTIAL).catch(() => {});
      throw new PageError('checksum', name, `${name}: its SHA-256 is ${digest}, but the catalog or the server says ${want}. The download was deleted.`);
    }
    close();
    await partHandle.move(keyOf(url));
    return { file: await partHandle.getFile(), checked: want, fromCache: false };
  } finally {
    close();
  }
}
