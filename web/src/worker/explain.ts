// Turns what went wrong in the worker into words for a person: a plain headline chosen by the error's code,
// and the engine's own message (which names the file, the field and the offending value) as the detail.
// Errors are told apart by their type and code only, never by the words of their message. What goes wrong
// before the engine sees the bytes (downloads, cancelling, a web page instead of a model) has codes of its
// own (PageErrorCode), worded in a second table here.
import { GlassboxError, type ErrorCode } from '@glassbox/engine';
import type { ErrorReport, PageErrorCode } from '../protocol';

/** An error whose message is already meant for a person (the worker's own, such as the engine still starting). */
export class PlainError extends Error {
  constructor(
    readonly title: string,
    readonly detail?: string,
  ) {
    super(detail ? `${title}: ${detail}` : title);
  }
}

/** An error the worker found itself, with its code (PAGE_EXPLANATIONS), the file it is about and which file that is. */
export class PageError extends Error {
  constructor(
    readonly code: PageErrorCode,
    readonly file: string,
    readonly detail?: string,
    readonly part: 'model' | 'tokenizer' = 'model',
  ) {
    super(detail ? `${file}: ${detail}` : file);
  }
}

/** Where a model came from, when the advice differs: the file picker's words do not fit the URL form. */
export type LoadedFrom = 'files' | 'url';

const SEPARATE_VOCABULARY =
  'llama2.c checkpoints keep their vocabulary in a separate file (stories260K uses tok512.bin, the Llama 2 models tokenizer.bin).';

/**
 * The headline of each engine error code, and what a person can do about it where there is something to say
 * (`urlAdvice`: instead, for a model loaded by URL).
 */
const EXPLANATIONS: Record<ErrorCode, { title: string; advice?: string; urlAdvice?: string }> = {
  io: { title: 'The file could not be read', advice: 'Try loading it again.' },
  'not-a-model': { title: 'This file is not a model glassbox can read', advice: 'glassbox reads llama2.c checkpoints (.bin) and GGUF files.' },
  'not-a-tokenizer': { title: 'This file is not a tokenizer glassbox can read' },
  truncated: { title: 'This file is cut short', advice: 'It ends before the data its header announces: the download may have been interrupted.' },
  malformed: { title: 'This file is damaged or breaks its format' },
  'unsupported-type': { title: 'This model stores its weights in a number type glassbox cannot compute yet' },
  'unsupported-architecture': { title: 'glassbox cannot run this kind of model yet' },
  'tokenizer-needed': {
    title: 'This model needs its tokenizer file too',
    advice: `${SEPARATE_VOCABULARY} Choose it as the tokenizer and load again.`,
    urlAdvice: `${SEPARATE_VOCABULARY} Give its address as the Tokenizer URL and load again.`,
  },
  'vocab-mismatch': { title: 'This tokenizer does not belong to this model', advice: 'Choose the tokenizer that came with the model.' },
  'prompt-empty': { title: 'There is nothing to start from', advice: 'Type a prompt: this model has no start-of-text token to begin an empty one with.' },
  'prompt-too-long': { title: 'The prompt is too long for this model' },
  'context-full': { title: 'The model’s context is full' },
  'out-of-memory': { title: 'Not enough memory for this model', advice: 'Close other tabs, or choose a smaller model.' },
  'bad-argument': { title: 'A setting is out of range' },
  'invalid-state': { title: 'The engine was asked to do something out of order' },
  'not-recorded': {
    title: 'That part of the conversation is no longer kept for inspection',
    advice: 'The page keeps what its views need for the most recent tokens only, within a fixed memory budget.',
  },
};

/** The worker's own errors: a headline (which may name the file) and advice. */
const PAGE_EXPLANATIONS: Record<PageErrorCode, { title: (file: string, part: 'model' | 'tokenizer') => string; advice?: string }> = {
  cancelled: { title: () => 'Loading was cancelled' },
  offline: {
    title: () => 'The browser is offline',
    advice: 'Connect to the internet and load it again. Models loaded before, while online, still work.',
  },
  unreachable: {
    title: (file) => `Could not download ${file}`,
    advice: 'The address may be wrong, the site may be down, or it does not allow downloads from other sites (CORS).',
  },
  'http-status': { title: (file) => `Could not download ${file}` },
  'web-page': {
    title: (_, part) => `This is a web page, not a ${part} file`,
    advice: 'The address leads to a page about the file (or an error page), not to the file itself: use the file’s download link.',
  },
  'text-file': {
    title: () => 'This is a text file, not a model file',
    advice: 'A model file is binary. A file that starts with "version https://git-lfs" is a Git LFS pointer: download the file it points to.',
  },
  checksum: {
    title: (file) => `${file} is not the file the catalog names`,
    advice: 'Its bytes do not match the SHA-256 stated for it: the download was damaged or the server sent another file. The copy was deleted; download it again.',
  },
  'too-large': {
    title: (file) => `${file} is too large for this page`,
    advice: 'The page’s engine runs in WebAssembly, whose memory cannot hold it. Choose a smaller model or a smaller quantization of it.',
  },
  'storage-full': {
    title: () => 'The browser has no room left for this model',
    advice: 'Delete saved copies of other models (or free disk space; a private window keeps less) and load it again: the download continues where it stopped.',
  },
  'no-storage': {
    title: () => 'This browser cannot keep downloaded models',
    advice: 'Catalog downloads are kept in the origin-private file system. Load the file from your disk or by URL instead.',
  },
};

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Explains any error: the engine's and the worker's by their codes, plain ones as they are, anything else
 * under `fallbackTitle`. `from`: where the model came from, for advice that says where to put things.
 */
export function explain(error: unknown, fallbackTitle: string, from?: LoadedFrom): ErrorReport {
  if (error instanceof GlassboxError) {
    const known = EXPLANATIONS[error.code] as (typeof EXPLANATIONS)[ErrorCode] | undefined;
    const advice = from === 'url' ? (known?.urlAdvice ?? known?.advice) : known?.advice;
    return { title: known?.title ?? fallbackTitle, detail: error.message, advice, code: error.code };
  }
  if (error instanceof PageError) {
    const known = PAGE_EXPLANATIONS[error.code];
    return { title: known.title(error.file, error.part), detail: error.detail, advice: known.advice, code: error.code };
  }
  if (error instanceof PlainError) return { title: error.title, detail: error.detail };
  if (error instanceof DOMException && error.name === 'AbortError') return explain(new PageError('cancelled', ''), fallbackTitle);
  return { title: fallbackTitle, detail: messageOf(error) };
}

/**
 * What a failed download of `url` is, for explain(): fetch() rejects with a TypeError when no answer came at
 * all, which says nothing a person can use. The browser knows when it is offline (navigator.onLine false:
 * no network at all; true proves less, so then the other causes are named). Every other error (the
 * engine's, cancelling) is kept as it is.
 */
export function downloadFailure(error: unknown, name: string, url: string): unknown {
  if (!(error instanceof TypeError)) return error;
  if (!navigator.onLine) return new PageError('offline', name, `${name} is not saved for offline use, and ${url} cannot be reached.`);
  return new PageError('unreachable', name, `The request for ${url} got no answer.`);
}
