// Streams a model or tokenizer file (a URL or a File) into an engine upload slot, chunk by chunk, straight
// into the WASM heap, reporting progress. Only when a server does not announce the size are the chunks
// gathered first. The engine refuses an empty file (not-a-model or not-a-tokenizer). The file's first bytes
// are handed to `checkHead` as soon as they are in (it may throw to stop the download: a web page is no
// model) and returned, for the worker to tell what the file is (the engine's foreignBytes() and isGguf(),
// the core's rule).
import type { GlassboxEngine } from '@glassbox/engine';
import { PageError } from './explain';

export type Progress = (loaded: number, total: number | null) => void;
export type CheckHead = (head: Uint8Array) => void;

/** The file name a URL points at ("stories260K.bin"), for messages. */
export function nameOfUrl(url: string): string {
  try {
    const last = new URL(url, self.location.href).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : url;
  } catch {
    return url;
  }
}

/** Reads `body` to its end, handing each chunk to `write`; stops (and stops the download) when `signal` aborts. */
export async function pump(body: ReadableStream<Uint8Array>, write: (chunk: Uint8Array) => void, signal: AbortSignal) {
  const reader = body.getReader();
  try {
    for (;;) {
      if (signal.aborted) throw new DOMException('cancelled', 'AbortError');
      const { done, value } = await reader.read();
      if (done) return;
      write(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {}); // stop the download too, not only the reading
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/** Keeps a stream's first `length` bytes and hands them to `check` once, when they are in or the stream ends. */
function headOf(check: CheckHead, length: number) {
  let head = new Uint8Array(0);
  let checked = false;
  const done = () => {
    if (!checked) {
      checked = true;
      check(head);
    }
    return head;
  };
  const add = (chunk: Uint8Array) => {
    if (head.length >= length) return;
    const grown = new Uint8Array(Math.min(length, head.length + chunk.length));
    grown.set(head);
    grown.set(chunk.subarray(0, grown.length - head.length), head.length);
    head = grown;
    if (head.length === length) done();
  };
  return { add, done };
}

async function uploadStream(
  engine: GlassboxEngine,
  slot: number,
  name: string,
  body: ReadableStream<Uint8Array>,
  size: number | null,
  progress: Progress,
  check: CheckHead,
  signal: AbortSignal,
): Promise<Uint8Array> {
  let loaded = 0;
  let lastReport = 0;
  const report = (force = false) => {
    const now = performance.now();
    if (force || now - lastReport > 40) {
      lastReport = now;
      progress(loaded, size);
    }
  };
  const head = headOf(check, engine.foreignBytesHead());
  report(true);
  if (size !== null) {
    const upload = engine.beginUpload(slot, size, name);
    await pump(body, (chunk) => {
      head.add(chunk);
      upload.write(chunk);
      loaded += chunk.length;
      report();
    }, signal);
    head.done();
    upload.finish();
  } else {
    const chunks: Uint8Array[] = [];
    await pump(body, (chunk) => {
      head.add(chunk);
      chunks.push(chunk);
      loaded += chunk.length;
      report();
    }, signal);
    head.done();
    const upload = engine.beginUpload(slot, loaded, name);
    for (const chunk of chunks) upload.write(chunk);
    upload.finish();
  }
  report(true);
  return head.done();
}

/** Uploads a File; returns its first bytes. */
export function uploadFile(engine: GlassboxEngine, slot: number, file: File, progress: Progress, check: CheckHead, signal: AbortSignal) {
  return uploadStream(engine, slot, file.name, file.stream(), file.size, progress, check, signal);
}

/** Downloads a URL into the engine; returns its first bytes. A failed request rejects with fetch's own error. */
export async function uploadUrl(engine: GlassboxEngine, slot: number, url: string, progress: Progress, check: CheckHead, signal: AbortSignal) {
  const name = nameOfUrl(url);
  const response = await fetch(url, { signal });
  if (!response.ok) throw new PageError('http-status', name, `The server answered ${response.status} ${response.statusText} for ${url}.`);
  if (!response.body) throw new PageError('http-status', name, `The response for ${url} has no body.`);
  // A compressed response announces its compressed size; then the size is only known at the end.
  const length = response.headers.get('content-length');
  const size = length !== null && !response.headers.get('content-encoding') ? Number(length) : null;
  return uploadStream(engine, slot, name, response.body, Number.isFinite(size) ? size : null, progress, check, signal);
}
