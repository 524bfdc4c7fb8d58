// How bytes and tokens are shown: vocabulary pieces as readable labels (spaces and newlines made visible,
// byte-fallback tokens as <0xXX>), bytes as hex, numbers with units.

const utf8 = new TextDecoder('utf-8', { fatal: false });
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The piece's text when it is whole UTF-8, or null (a byte of a longer character). */
export function pieceText(piece: Uint8Array): string | null {
  try {
    return strictUtf8.decode(piece);
  } catch {
    return null;
  }
}

/** A short label for a token: its text with whitespace made visible; raw bytes as <0xXX>. */
export function tokenLabel(piece: Uint8Array): string {
  const text = pieceText(piece);
  if (text === null) return Array.from(piece, (b) => `<0x${hex(b)}>`).join('');
  const trimmed = text.trim();
  if (/^<[^<>\s]+>$/.test(trimmed)) return trimmed; // control tokens such as "\n<s>\n"
  return visibleWhitespace(text);
}

/**
 * The byte a byte-fallback piece stands for: SentencePiece vocabularies spell byte tokens as the text
 * "<0x82>", so the piece's own bytes are that text, not the byte. Null for every other piece.
 */
export function fallbackByte(piece: Uint8Array): number | null {
  const match = /^<0x([0-9A-Fa-f]{2})>$/.exec(pieceText(piece) ?? '');
  return match ? parseInt(match[1], 16) : null;
}

/** "1 byte", "5 bytes". */
export const countBytes = (n: number) => `${n} ${n === 1 ? 'byte' : 'bytes'}`;

export function visibleWhitespace(text: string): string {
  return text.replace(/ /g, '·').replace(/\n/g, '↵').replace(/\t/g, '⇥').replace(/\r/g, '␍');
}

export const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, '0');
export const hexBytes = (bytes: Uint8Array) => Array.from(bytes, hex).join(' ');

export function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 2 ** 20) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 2 ** 30) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return `${(bytes / 2 ** 30).toFixed(2)} GiB`;
}

/**
 * A probability or attention weight for reading: four decimals ("0.0123"), and below 0.001, where four
 * decimals keep one digit or none, two significant digits ("2.3e-6"), so a small weight never reads as 0.
 */
export function describeProbability(p: number): string {
  return p === 0 || Math.abs(p) >= 0.001 ? p.toFixed(4) : p.toExponential(1);
}

/** `x` to `digits` decimals, without the minus sign of a value that rounds to zero ("-0.00" shows a sign that is not there). */
export function fixed(x: number, digits: number): string {
  const text = x.toFixed(digits);
  return Number(text) === 0 ? (0).toFixed(digits) : text;
}

export function describeCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(n >= 1e10 ? 0 : 1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1)}K`;
  return String(n);
}

export const decodeUtf8 = (bytes: Uint8Array) => utf8.decode(bytes);

/** Creates an element with a class and optional text. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** A control with its label before it, on one line (the views' Layer / Head / Scale pickers). */
export function inlineField(text: string, control: HTMLElement): HTMLLabelElement {
  const label = el('label', 'inline-field');
  label.append(el('span', '', text), control);
  return label;
}
