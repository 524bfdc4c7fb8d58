// Turns what went wrong in the worker into words for a person: a plain headline, and the engine's own
// message (which names the file, the field and the offending value) as the detail.
import type { ErrorReport } from '../protocol';

/** An error whose message is already meant for a person. */
export class PlainError extends Error {
  constructor(
    readonly title: string,
    readonly detail?: string,
  ) {
    super(detail ? `${title}: ${detail}` : title);
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function explain(error: unknown, fallbackTitle: string): ErrorReport {
  if (error instanceof PlainError) return { title: error.title, detail: error.detail };
  return { title: fallbackTitle, detail: messageOf(error) };
}

/** Explains a failed engine.load() of `modelName` with `tokenizerName` (empty when there is none). */
export function explainLoadFailure(error: unknown, modelName: string, tokenizerName: string): ErrorReport {
  const message = messageOf(error);
  if (/no bytes were uploaded for the tokenizer|needs its tokenizer file/.test(message)) {
    return {
      title: 'This model needs its tokenizer file too',
      detail:
        'llama2.c checkpoints keep their vocabulary in a separate file (stories260K uses tok512.bin, ' +
        'the Llama 2 models tokenizer.bin). Choose it as the tokenizer and load again.',
    };
  }
  if (tokenizerName && message.startsWith(`${tokenizerName}:`)) {
    return { title: 'This file is not a tokenizer glassbox can use with this model', detail: message };
  }
  if (/not enough memory/.test(message)) return { title: 'Not enough memory for this model', detail: message };
  return { title: `This file is not a model glassbox can read`, detail: message.startsWith(modelName) ? message : `${modelName}: ${message}` };
}

/** Explains a failed download of `url`. */
export function explainDownloadFailure(error: unknown, name: string, url: string): ErrorReport {
  if (error instanceof PlainError) return explain(error, '');
  if (error instanceof DOMException && error.name === 'AbortError') return { title: 'Loading was cancelled' };
  if (error instanceof TypeError) {
    return {
      title: `Could not download ${name}`,
      detail:
        `The request for ${url} failed: you may be offline, the address may be wrong, or the server does not ` +
        'allow downloads from other sites (CORS).',
    };
  }
  return { title: `Could not download ${name}`, detail: messageOf(error) };
}
