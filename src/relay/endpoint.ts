// Where a relay connects or listens: HOST:PORT, parsed the same way by the TCP relay, the CLI and the Worker.

export interface Endpoint {
  host: string;
  port: number;
}

/** Parses "HOST:PORT" (IPv6 as "[::1]:PORT"). Throws a RangeError naming the bad part. */
export function parseEndpoint(text: string): Endpoint {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) throw new RangeError(`'${text}' is not HOST:PORT`);
  return { host: match[1] ?? match[2], port };
}
