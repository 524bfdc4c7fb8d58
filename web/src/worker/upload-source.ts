// Brings a model and its tokenizer into the engine's upload slots: the model first, then the tokenizer the
// pairing rule gives it (pairing.ts), which needs the model's first bytes. Bytes that are plainly no model
// (a web page, a Git LFS pointer, other text) are refused as soon as their first bytes are in, by the core's
// own rule (engine.foreignBytes), so a download stops at once instead of running to its end. On any failure both slots are emptied, so a later load cannot pick up half a
// file.
import { type GlassboxEngine, MODEL_SLOT, TOKENIZER_SLOT } from '@glassbox/engine';
import type { ModelSource } from '../protocol';
import { downloadFailure, PageError } from './explain';
import { fetchToCache } from './hub-cache';
import { tokenizerFor } from './pairing';
import { nameOfUrl, type Progress, uploadFile, uploadUrl } from './sources';

export type Part = 'model' | 'tokenizer';

/** What was uploaded, under the names the engine's messages will use. */
export interface Uploaded {
  model: string;
  tokenizer: { name: string; chosenBefore: boolean } | null; // null: the model's own
  setAside?: string; // a tokenizer chosen before, left out (pairing.ts)
}

/**
 * Refuses a web page or Git LFS pointer given as a model or tokenizer, and other text given as a model (a
 * tokenizer may be JSON). An empty file is left to the engine's upload, which says so.
 */
const refuseForeign = (e: GlassboxEngine, part: Part, name: string) => (head: Uint8Array) => {
  const foreign = e.foreignBytes(head, part);
  if (!foreign || foreign.kind === 'empty') return;
  throw new PageError(foreign.kind === 'web-page' ? 'web-page' : 'text-file', name, `${name}: ${foreign.description}.`, part);
};

async function uploadPart(
  e: GlassboxEngine,
  part: Part,
  from: string | File,
  progress: (part: Part, name: string) => Progress,
  signal: AbortSignal,
): Promise<{ name: string; head: Uint8Array }> {
  const slot = part === 'model' ? MODEL_SLOT : TOKENIZER_SLOT;
  const name = typeof from === 'string' ? nameOfUrl(from) : from.name;
  const check = refuseForeign(e, part, name);
  if (typeof from !== 'string') return { name, head: await uploadFile(e, slot, from, progress(part, name), check, signal) };
  const head = await uploadUrl(e, slot, from, progress(part, name), check, signal).catch((error: unknown) => {
    throw downloadFailure(error, name, from);
  });
  return { name, head };
}

/** A hub catalog entry: from the browser's copy, or downloaded into it first (hub-cache.ts); GGUF, so no tokenizer file. */
async function uploadHub(
  e: GlassboxEngine,
  source: Extract<ModelSource, { kind: 'hub' }>,
  progress: (part: Part, name: string) => Progress,
  signal: AbortSignal,
): Promise<Uploaded> {
  const name = nameOfUrl(source.url);
  const fetched = await fetchToCache(source.url, source.sha256, e.largestUpload(), progress('model', name), signal).catch((error: unknown) => {
    throw downloadFailure(error, name, source.url);
  });
  await uploadFile(e, MODEL_SLOT, fetched.file, progress('model', name), refuseForeign(e, 'model', name), signal);
  return { model: name, tokenizer: null };
}

export async function uploadSource(
  e: GlassboxEngine,
  source: ModelSource,
  progress: (part: Part, name: string) => Progress,
  signal: AbortSignal,
): Promise<Uploaded> {
  try {
    if (source.kind === 'hub') return await uploadHub(e, source, progress, signal);
    const model = await uploadPart(e, 'model', source.model, progress, signal);
    const choice = tokenizerFor(source, e.isGguf(model.head));
    if (!choice.use) return { model: model.name, tokenizer: null, setAside: choice.setAside };
    const tokenizer = await uploadPart(e, 'tokenizer', choice.use, progress, signal);
    return { model: model.name, tokenizer: { name: tokenizer.name, chosenBefore: choice.chosenBefore } };
  } catch (error) {
    e.clearUpload(MODEL_SLOT);
    e.clearUpload(TOKENIZER_SLOT);
    throw error;
  }
}
