// Bytes for tests: hex, UTF-8, payloads, joining and splitting.

const encoder = new TextEncoder();

/** The bytes a hex string spells; '' is no bytes. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || /[^0-9a-fA-F]/.test(hex)) throw new Error(`not hex: ${hex.slice(0, 40)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let k = 0; k < out.length; k++) out[k] = parseInt(hex.slice(2 * k, 2 * k + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** A frame's payload: the tag byte, then the body (a string as its UTF-8). */
export function payloadOf(body: Uint8Array | string, tag = 0): Uint8Array {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const out = new Uint8Array(bytes.length + 1);
  out[0] = tag;
  out.set(bytes, 1);
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `bytes` cut into pieces of `size` bytes (the last may be shorter). Each piece is a copy. */
export function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

/** `bytes` cut at the given offsets (any order, repeats and ends allowed), as copies. */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(bytes.length, c))))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.slice(from, p));
    from = p;
  }
  out.push(bytes.slice(from));
  return out;
}
