// What the runtime matrix's JavaScript uses of hosts whose types are not installed here.

/** The part of Deno's namespace hosts/deno.js uses. */
declare const Deno: {
  readonly stdin: { readonly readable: ReadableStream<Uint8Array> };
  readonly version: { readonly deno: string };
  exit(code: number): never;
};

/** A service-worker style fetch event (edge-runtime's addEventListener('fetch')). */
interface FetchEvent extends Event {
  readonly request: Request;
  respondWith(response: Response | Promise<Response>): void;
}

interface Window {
  /** Where a page leaves the smoke suite's report for the harness. */
  smokeResult?: { report?: Record<string, unknown>; error?: string };
}
