// Turns what went wrong in the worker into words for a person: a plain headline chosen by the error's code,
// and the engine's own message (which names the file, the field and the offending value) as the detail.
// Errors are told apart by their type and code only, never by the words of their message.
import { GlassboxError, type ErrorCode } from '@glassbox/engine';
import type { ErrorReport } from '../protocol';

/** An error whose message is already meant for a person (the worker's own: downloads, cancelling). */
export class PlainError extends Error {
  constructor(
    readonly title: string,
    readonly detail?: string,
  ) {
    super(detail ? `${title}: ${detail}` : title);
  }
}

/** The headline of each engine error code, and what a person can do about it where there is something to say. */
const EXPLANATIONS: Record<ErrorCode, { title: string; advice?: string }> = {
  io: { title: 'The file could not be read', advice: 'Try loading it again.' },
  'not-a-model': { title: 'This file is not a model glassbox can read', advice: 'glassbox reads llama2.c checkpoints (.bin) and GGUF files.' },
  'not-a-tokenizer': { title: 'This file is not a tokenizer glassbox can read' },
  truncated: { title: 'This file is cut short', advice: 'It ends before the data its header announces: the download may have been interrupted.' },
  malformed: { title: 'This file is damaged or breaks its format' },
  'unsupported-type': { title: 'This model stores its weights in a number type glassbox cannot compute yet' },
  'unsupported-architecture': { title: 'glassbox cannot run this kind of model yet' },
  'tokenizer-needed': {
    title: 'This model needs its tokenizer file too',
    advice:
      'llama2.c checkpoints keep their vocabulary in a separate file (stories260K uses tok512.bin, ' +
      'the Llama 2 models tokenizer.bin). Choose it as the tokenizer and load again.',
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

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Explains any error: the engine's by its code, the worker's own as they are, anything else under `fallbackTitle`. */
export function explain(error: unknown, fallbackTitle: string): ErrorReport {
  if (error instanceof GlassboxError) {
    const known = EXPLANATIONS[error.code] as (typeof EXPLANATIONS)[ErrorCode] | undefined;
    return { title: known?.title ?? fallbackTitle, detail: error.message, advice: known?.advice, code: error.code };
  }
  if (error instanceof PlainError) return { title: error.title, detail: error.detail };
  if (error instanceof DOMException && error.name === 'AbortError') return { title: 'Loading was cancelled' };
  return { title: fallbackTitle, detail: messageOf(error) };
}

/**
 * What a failed download of `url` is, for explain(): fetch() rejects with a TypeError when no answer came at
 * all (offline, a wrong address, or a server that does not allow CORS), which says nothing a person can
 * use, so it becomes a PlainError that does. Every other error (the engine's, cancelling) is kept as it is.
 */
export function downloadFailure(error: unknown, name: string, url: string): unknown {
  if (!(error instanceof TypeError)) return error;
  return new PlainError(
    `Could not download ${name}`,
    `The request for ${url} failed: you may be offline, the address may be wrong, or the server does not ` +
      'allow downloads from other sites (CORS).',
  );
}
