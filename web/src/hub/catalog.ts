// The catalog of real models by URL (web/hub-models.json): GGUF files on the Hugging Face hub, downloaded only
// when a person asks, into the browser's own storage (worker/hub-cache.ts). The hub's address can be changed
// with the page's `hub` query parameter (?hub=http://127.0.0.1:8080/): a mirror, or the tests' local server of
// random-weight files at the same paths. The links a person follows to read about a model always go to the
// real hub.
import catalog from '../../hub-models.json';

export interface HubEntry {
  id: string;
  name: string;
  architecture: string; // GGUF's general.architecture
  quantization: string; // llama.cpp's file-type name (Q8_0, Q4_K_M, ...)
  repo: string;
  revision: string;
  file: string;
  bytes: number; // nominal unless exactBytes
  exactBytes?: boolean;
  sha256?: string; // listed where public records agree; otherwise the hub's X-Linked-Etag says
  license: string;
  description: string;
  tooLargeDemo?: boolean;
}

export const HUB_ENTRIES: readonly HubEntry[] = catalog.models;
const REAL_HUB = catalog.hub;

/** The hub the files come from: the page's `hub` query parameter, or huggingface.co. */
export function hubBase(search = location.search): string {
  const asked = new URLSearchParams(search).get('hub');
  if (!asked) return REAL_HUB;
  try {
    const url = new URL(asked, location.href);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return REAL_HUB;
    return url.href.endsWith('/') ? url.href : `${url.href}/`;
  } catch {
    return REAL_HUB;
  }
}

/** Whether `base` is huggingface.co itself (no `hub` query parameter). */
export const isRealHub = (base: string) => base === REAL_HUB;

/**
 * The SHA-256 to check the entry's file against, when the catalog lists one: it describes huggingface.co's
 * file, so another hub (the tests' random-weight files) is checked against its own X-Linked-Etag instead.
 */
export const listedSha256 = (entry: HubEntry, base: string) => (base === REAL_HUB ? entry.sha256 : undefined);

/** Where the entry's file is downloaded from. */
export const fileUrl = (entry: HubEntry, base: string) => `${base}${entry.repo}/resolve/${entry.revision}/${entry.file}`;

/** The model's page on the real hub, for people (its card, its license). */
export const sourceUrl = (entry: HubEntry) => `${REAL_HUB}${entry.repo}`;
