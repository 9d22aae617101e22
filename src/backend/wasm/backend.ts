// The WebAssembly backend: the core checks the bytes, TS builds the values.
//
// # One memory, lent out
//
// A backend holds one core instance, with one memory, and lends it to each
// call: verifyFrame, or one reader's push. A call made while the core is
// lent (a sink that feeds a second decoder from inside a callback) gets a
// second instance of the same compiled module rather than a clobbered
// scratch region; in the ordinary case there is only ever the one.

import { Status } from '../status.js';
import { EMPTY_PAYLOAD, UNKNOWN_TAG, type Backend, type BackendName, type FrameFault } from '../backend.js';
import type { RecordReader, RecordSink, ReaderLimits } from '../../records/reader.js';
import { recordFault, type RecordFault } from '../../records/record-error.js';
import { HEADER_SIZE, KIND_FINISH } from '../../records/record.js';
import { Core } from './core.js';
import { HeldBytes } from '../../records/held-bytes.js';

function frameFault(status: number, offset: number): FrameFault | null {
  if (status === Status.Ok) return null;
  if (status === Status.Empty) return EMPTY_PAYLOAD;
  if (status === Status.UnknownTag) return UNKNOWN_TAG;
  return { status: status as Status, offset };
}

/**
 * Core instances of one module: one for each level of nesting seen so far,
 * at most two kept (deeper nesting makes throwaway instances).
 */
export class CorePool {
  private readonly free: Core[] = [];

  constructor(private readonly module: WebAssembly.Module) {
    this.free.push(this.create());
  }

  private create(): Core {
    return new Core(new WebAssembly.Instance(this.module, {}));
  }

  acquire(): Core {
    return this.free.pop() ?? this.create();
  }

  release(core: Core): void {
    if (this.free.length < 2) this.free.push(core);
  }
}

/** A backend over a compiled core module. Nothing is compiled here. */
export function createWasmBackend(name: BackendName, module: WebAssembly.Module): Backend {
  const pool = new CorePool(module);
  return {
    name,
    verifyFrame(payload) {
      const core = pool.acquire();
      try {
        core.write(payload);
        const status = core.exports.verifyFrame(core.scratch, payload.length);
        return status === Status.Ok ? null : frameFault(status, core.exports.faultOffset());
      } finally {
        pool.release(core);
      }
    },
    createReader: (limits, sink) => new WasmRecordReader(pool, limits, sink, limits.verify ?? true),
  };
}

/**
 * The most bytes of a chunk scanned in one call, unless the frame limit
 * allows larger records: scratch holds one whole record anyway, so a window
 * that size costs no more memory, and a record is never cut by a window.
 */
const WINDOW = 1 << 20;

/**
 * Records on the core. Each chunk is copied once into scratch and scanned
 * in one call; the table's entries then go to the sink in order.
 *
 * # A cut record waits in JS
 *
 * The bytes of a record cut by the end of a chunk are kept in JS until the
 * rest arrives (src/records/held-bytes.ts: the buffer grows with what
 * arrives, not with what the header declares). Once the header is in hand
 * (the core has checked it against the limit, and the sink has admitted the
 * channel), later chunks are appended without a scan, and the record is
 * scanned once, whole. Scratch never holds
 * more than one window of a chunk, or one whole record.
 */
export class WasmRecordReader implements RecordReader {
  /** Stream offset of the next byte not yet in a whole record. */
  private base = 0;
  /** The cut record's bytes so far, or null between records. */
  private held: HeldBytes | null = null;
  /** The cut record's whole size, once its header is in hand (else 0). */
  private need = 0;
  private failed: RecordFault | null = null;

  constructor(
    private readonly pool: CorePool,
    private readonly limits: ReaderLimits,
    private readonly sink: RecordSink,
    private readonly verify: boolean,
  ) {}

  get position(): number {
    return this.base + (this.held?.length ?? 0);
  }

  private fail(status: number, at: number): RecordFault {
    this.failed = recordFault(status, at);
    return this.failed;
  }

  push(chunk: Uint8Array): RecordFault | null {
    const window = Math.max(WINDOW, Math.min(this.limits.maxFrameBytes + HEADER_SIZE, 2 ** 31));
    for (let i = 0; i < chunk.length && !this.failed; i += window) {
      this.pushWindow(chunk.length <= window ? chunk : chunk.subarray(i, i + window));
    }
    return this.failed;
  }

  private pushWindow(chunk: Uint8Array): void {
    const held = this.held;
    if (held && this.need > 0 && held.length + chunk.length < this.need) {
      held.append(chunk);
      return;
    }
    const core = this.pool.acquire();
    try {
      const heldLength = held?.length ?? 0;
      core.reserve(heldLength + chunk.length);
      if (held) core.bytes.set(held.bytes(), core.scratch);
      core.bytes.set(chunk, core.scratch + heldLength);
      this.held = null;
      this.need = 0;
      this.scan(core, heldLength + chunk.length);
    } finally {
      this.pool.release(core);
    }
  }

  /** Scans scratch[0, total) and hands on what it finds; keeps a cut tail. */
  private scan(core: Core, total: number): void {
    let from = 0;
    for (;;) {
      const count = core.exports.scanRecords(core.scratch + from, total - from, this.limits.maxFrameBytes, this.verify ? 1 : 0);
      if (this.deliver(core, from, count)) return;
      const stop = core.stop;
      const status = stop[0];
      const at = from + (stop[1] >>> 0);
      switch (status) {
        case Status.TableFull:
          from = at;
          continue;
        case Status.Ok:
          this.base += total;
          return;
        case Status.Incomplete:
          this.base += at;
          this.hold(core, at, total, stop);
          return;
        default:
          this.fail(status, this.base + at);
          return;
      }
    }
  }

  /** Keeps scratch[at, total), a cut record, for the next chunk. */
  private hold(core: Core, at: number, total: number, stop: Int32Array): void {
    if (stop[2] !== 0) {
      // A response cut after its header: the channel and held limits are
      // judged now, before its payload is held.
      const admitted = this.sink.admit(stop[3] >>> 0, stop[4] >>> 0);
      if (admitted !== Status.Ok) {
        this.fail(admitted, this.base);
        return;
      }
      this.need = HEADER_SIZE + (stop[4] >>> 0);
      this.held = new HeldBytes(this.need);
    } else {
      this.held = new HeldBytes(HEADER_SIZE); // a cut header: fewer than 9 bytes
    }
    this.held.append(core.bytes.subarray(core.scratch + at, core.scratch + total));
  }

  /** Hands the table's entries to the sink, in order. Returns true when a refused channel stopped the stream. */
  private deliver(core: Core, from: number, count: number): boolean {
    const { table, entryFields, bytes, scratch } = core;
    for (let k = 0, e = 0; k < count; k++, e += entryFields) {
      const channel = table[e + 1] >>> 0;
      const at = from + (table[e + 2] >>> 0);
      if (table[e] === KIND_FINISH) {
        this.sink.finish(channel, this.base + at);
        continue;
      }
      const length = table[e + 3] >>> 0;
      const admitted = this.sink.admit(channel, length);
      if (admitted !== Status.Ok) {
        this.fail(admitted, this.base + at);
        return true;
      }
      const start = scratch + at + HEADER_SIZE;
      const payload = bytes.subarray(start, start + length);
      this.sink.response(channel, payload, this.base + at, this.verify ? frameFault(table[e + 4], table[e + 5]) : undefined);
    }
    return false;
  }

  end(): RecordFault | null {
    if (this.failed) return this.failed;
    if (this.held) return this.fail(Status.Truncated, this.base);
    return null;
  }
}
