// Streams a model or tokenizer file (a URL or a File) into an engine upload slot, chunk by chunk, straight
// into the WASM heap, reporting progress. Only when a server does not announce the size are the chunks
// gathered first. The engine refuses an empty file (not-a-model or not-a-tokenizer).
import type { GlassboxEngine } from '@glassbox/engine';
import { PlainError } from './explain';

export type Progress = (loaded: number, total: number | null) => void;

/** The file name a URL points at ("stories260K.bin"), for messages. */
export function nameOfUrl(url: string): string {
  try {
    const last = new URL(url, self.location.href).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : url;
  } catch {
    return url;
  }
}

async function pump(body: ReadableStream<Uint8Array>, write: (chunk: Uint8Array) => void, signal: AbortSignal) {
  const reader = body.getReader();
  try {
    for (;;) {
      if (signal.aborted) throw new DOMException('cancelled', 'AbortError');
      const { done, value } = await reader.read();
      if (done) return;
      write(value);
    }
  } finally {
    reader.releaseLock();
  }
}

async function uploadStream(
  engine: GlassboxEngine,
  slot: number,
  name: string,
  body: ReadableStream<Uint8Array>,
  size: number | null,
  progress: Progress,
  signal: AbortSignal,
) {
  let loaded = 0;
  let lastReport = 0;
  const report = (force = false) => {
    const now = performance.now();
    if (force || now - lastReport > 40) {
      lastReport = now;
      progress(loaded, size);
    }
  };
  report(true);
  if (size !== null) {
    const upload = engine.beginUpload(slot, size, name);
    await pump(body, (chunk) => {
      upload.write(chunk);
      loaded += chunk.length;
      report();
    }, signal);
    upload.finish();
  } else {
    const chunks: Uint8Array[] = [];
    await pump(body, (chunk) => {
      chunks.push(chunk);
      loaded += chunk.length;
      report();
    }, signal);
    const upload = engine.beginUpload(slot, loaded, name);
    for (const chunk of chunks) upload.write(chunk);
    upload.finish();
  }
  report(true);
}

export async function uploadFile(engine: GlassboxEngine, slot: number, file: File, progress: Progress, signal: AbortSignal) {
  await uploadStream(engine, slot, file.name, file.stream(), file.size, progress, signal);
}

export async function uploadUrl(engine: GlassboxEngine, slot: number, url: string, progress: Progress, signal: AbortSignal) {
  const name = nameOfUrl(url);
  const response = await fetch(url, { signal });
  if (!response.ok) {
    throw new PlainError(`Could not download ${name}`, `The server answered ${response.status} ${response.statusText} for ${url}.`);
  }
  if (!response.body) throw new PlainError(`Could not download ${name}`, `The response for ${url} has no body.`);
  // A compressed response announces its compressed size; then the size is only known at the end.
  const length = response.headers.get('content-length');
  const size = length !== null && !response.headers.get('content-encoding') ? Number(length) : null;
  await uploadStream(engine, slot, name, response.body, Number.isFinite(size) ? size : null, progress, signal);
}
