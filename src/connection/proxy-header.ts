// The PROXY protocol header a load balancer puts before a client's bytes, versions 1 and 2 (HAProxy's proxy-protocol.txt).
//
// Version 1 is a line: "PROXY TCP4 203.0.113.7 192.0.2.1 56324 7000\r\n",
// at most 107 bytes with its CRLF; "PROXY UNKNOWN…\r\n" names no client.
// Version 2 is binary: a 12-byte signature, a version and command byte
// (0x20 LOCAL, 0x21 PROXY), a family and transport byte, and the length
// of the addresses and TLVs that follow, big-endian. A LOCAL header is the
// balancer's own connection (its health checks): the socket's own address
// stands. So do the UNSPEC and UNIX families, which name no TCP client.
//
// The reader is given the bytes received so far, from the connection's
// first byte. It answers as soon as they decide: a header (and how many
// bytes it took), a refusal (the first byte that breaks the format, or a
// length past the bound, judged from the 16-byte prefix before the rest
// is held), or null for "not yet". Nothing is guessed: a connection that
// does not start with a header is refused, as the protocol requires of a
// port configured for it.

import net from 'node:net';

/** Version 1's longest line, its CRLF included. */
const V1_MAX_BYTES = 107;
/**
 * The longest version 2 header read: the 16-byte prefix, an IPv6 address
 * block (36 bytes) and room for the TLVs balancers send (an AWS endpoint
 * id, TLS details). Past it the header is refused from its length field.
 */
export const MAX_PROXY_HEADER_BYTES = 16 + 2048;

const V1_PREFIX = Uint8Array.from('PROXY ', (c) => c.charCodeAt(0));
const V2_SIGNATURE = Uint8Array.of(0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a);
const CR = 0x0d;
const LF = 0x0a;

/** The client a header names, as a log line writes an address: "203.0.113.7:56324", "[2001:db8::7]:56324". */
export interface ProxyHeader {
  version: 1 | 2;
  /** Bytes the header took: the client's own bytes start there. */
  length: number;
  /** The client's address and port, or null when the header names none (LOCAL, UNKNOWN, UNSPEC, UNIX): the socket's own stand. */
  source: string | null;
}

/** Why a connection's first bytes are not a PROXY header, and the offset of the byte that shows it. */
export interface ProxyHeaderRefusal {
  refused: 'proxy-header';
  message: string;
  offset: number;
}

const refusal = (message: string, offset: number): ProxyHeaderRefusal => ({ refused: 'proxy-header', message, offset });

/** The header at the start of `bytes`, a refusal, or null while the bytes so far do not decide. */
export function readProxyHeader(bytes: Uint8Array): ProxyHeader | ProxyHeaderRefusal | null {
  if (bytes.length === 0) return null;
  if (bytes[0] === V1_PREFIX[0]) return readV1(bytes);
  if (bytes[0] === V2_SIGNATURE[0]) return readV2(bytes);
  return refusal('no PROXY protocol header: the connection must start with one', 0);
}

/** The offset of the first byte of `bytes` that differs from `expected` (as far as both go), or -1. */
function mismatch(bytes: Uint8Array, expected: Uint8Array): number {
  const n = Math.min(bytes.length, expected.length);
  for (let i = 0; i < n; i++) if (bytes[i] !== expected[i]) return i;
  return -1;
}

function readV1(bytes: Uint8Array): ProxyHeader | ProxyHeaderRefusal | null {
  const wrong = mismatch(bytes, V1_PREFIX);
  if (wrong >= 0) return refusal('not a PROXY protocol header: version 1 starts "PROXY "', wrong);
  let end = -1;
  for (let i = V1_PREFIX.length; i < bytes.length && end < 0; i++) {
    // The CR is at most the line's 106th byte, so that its LF is the 107th.
    if (i >= V1_MAX_BYTES - 1) return refusal(`a PROXY version 1 line is at most ${V1_MAX_BYTES} bytes`, i);
    const c = bytes[i];
    if (c === CR) {
      if (i + 1 === bytes.length) return null;
      // A CR followed by anything but LF, or a lone LF, ends no line: the protocol asks for CRLF exactly.
      if (bytes[i + 1] !== LF) return refusal('a PROXY version 1 line ends with CRLF', i + 1);
      end = i;
    } else if (c === LF) return refusal('a PROXY version 1 line ends with CRLF', i);
    else if (c < 0x20 || c > 0x7e) return refusal('a PROXY version 1 line is printable ASCII', i);
  }
  if (end < 0) return null;
  const line = String.fromCharCode(...bytes.subarray(0, end));
  const header = { version: 1 as const, length: end + 2 };
  const fields = line.split(' ');
  if (fields[1] === 'UNKNOWN') return { ...header, source: null };
  if (fields.length !== 6) return refusal('a PROXY version 1 line is "PROXY TCP4|TCP6 SOURCE DESTINATION SPORT DPORT"', end);
  const [, family, source, destination, sport, dport] = fields;
  const isIp = family === 'TCP4' ? net.isIPv4 : family === 'TCP6' ? net.isIPv6 : null;
  if (isIp === null) return refusal(`a PROXY version 1 protocol is TCP4, TCP6 or UNKNOWN, not '${family}'`, V1_PREFIX.length);
  // A zone id ("fe80::1%eth0") names an interface of the host that reads it, never a remote client.
  if (!isIp(source) || !isIp(destination) || source.includes('%') || destination.includes('%'))
    return refusal(`a PROXY version 1 ${family} line's addresses are ${family === 'TCP4' ? 'IPv4' : 'IPv6'}, with no zone`, end);
  const port = portOf(sport);
  if (port < 0 || portOf(dport) < 0) return refusal('a PROXY version 1 port is a decimal number from 0 to 65535', end);
  return { ...header, source: family === 'TCP4' ? `${source}:${port}` : `[${source}]:${port}` };
}

/** A version 1 port: decimal, no leading zero, at most 65535; -1 otherwise. */
function portOf(text: string): number {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(text)) return -1;
  const port = Number(text);
  return port <= 65535 ? port : -1;
}

function readV2(bytes: Uint8Array): ProxyHeader | ProxyHeaderRefusal | null {
  const wrong = mismatch(bytes, V2_SIGNATURE);
  if (wrong >= 0) return refusal('not a PROXY protocol header: the version 2 signature differs', wrong);
  if (bytes.length < 16) return null;
  const versionCommand = bytes[12];
  if (versionCommand >> 4 !== 2) return refusal(`a PROXY version 2 header's version is 2, not ${versionCommand >> 4}`, 12);
  const command = versionCommand & 0x0f;
  if (command > 1) return refusal(`a PROXY version 2 command is LOCAL (0) or PROXY (1), not ${command}`, 12);
  const family = bytes[13] >> 4;
  const transport = bytes[13] & 0x0f;
  if (family > 3 || transport > 2) return refusal(`0x${bytes[13].toString(16).padStart(2, '0')} is no PROXY version 2 family and transport`, 13);
  const length = 16 + ((bytes[14] << 8) | bytes[15]);
  if (length > MAX_PROXY_HEADER_BYTES) return refusal(`a PROXY version 2 header here is at most ${MAX_PROXY_HEADER_BYTES} bytes, not ${length}`, 14);
  if (bytes.length < length) return null;
  const header = { version: 2 as const, length };
  // LOCAL: the balancer's own connection. UNSPEC or UNIX: no TCP client to name.
  if (command === 0 || family === 0 || family === 3) return { ...header, source: null };
  if (transport !== 1) return refusal('a PROXY version 2 header on a TCP port carries a stream (TCP), not a datagram', 13);
  const need = family === 1 ? 12 : 36;
  if (length - 16 < need)
    return refusal(`a PROXY version 2 ${family === 1 ? 'IPv4' : 'IPv6'} address block is ${need} bytes, not ${length - 16}`, 14);
  const portAt = family === 1 ? 24 : 48;
  const port = (bytes[portAt] << 8) | bytes[portAt + 1];
  const source = family === 1 ? bytes.subarray(16, 20).join('.') : ipv6(bytes.subarray(16, 32));
  return { ...header, source: family === 1 ? `${source}:${port}` : `[${source}]:${port}` };
}

/**
 * Sixteen bytes as an IPv6 address in its short form (RFC 5952): the
 * longest run of two or more zero groups as "::", and an IPv4-mapped
 * address with its IPv4 part dotted ("::ffff:203.0.113.7"), as Node and a
 * version 1 header write it.
 */
function ipv6(b: Uint8Array): string {
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return `::ffff:${b.subarray(12, 16).join('.')}`;
  const groups = Array.from({ length: 8 }, (_, k) => ((b[2 * k] << 8) | b[2 * k + 1]).toString(16));
  let best = -1;
  let bestLength = 1;
  for (let k = 0; k < 8; ) {
    if (groups[k] !== '0') {
      k++;
      continue;
    }
    let end = k;
    while (end < 8 && groups[end] === '0') end++;
    if (end - k > bestLength) {
      best = k;
      bestLength = end - k;
    }
    k = end;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLength).join(':')}`;
}
