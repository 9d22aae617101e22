// The WebAssembly backend: the core checks the bytes, TS builds the values.
//
// # One memory, lent out
//
// A backend holds one core instance, with one memory, and lends it to each
// call: verifyFrame, or one scan of the record reader. A call made while the
// core is lent (a sink that feeds a second decoder from inside a callback)
// gets a second instance of the same compiled module rather than a
// clobbered scratch region; in the ordinary case there is only ever the one.
//
// # The scan kernel
//
// Each scan copies its run of bytes once into scratch, where the core reads
// them, and the core writes one table entry per record (assembly/records.ts).
// The reader (src/records/reader.ts) reads the entries while the core is
// lent, then gives it back. A long record cut across chunks is held in the
// scratch of a core leased for it (CorePool below): each chunk's bytes are
// copied once, to where the core will scan them when the record is whole.

import { type Fold, type InPlaceRecord, RecordReader, type Scan, type ScanKernel } from '../../records/reader.js';
import { HEADER_SIZE } from '../../records/record.js';
import { type Backend, type BackendName, SCREENED } from '../backend.js';
import { type Fault, frameFault } from '../../wire/fault.js';
import { Status } from '../../wire/status.js';
import { TAG_RESULT } from '../../wire/tags.js';
import type { StringKit } from '../../contract/string-kit.js';
import { tableOf } from '../../contract/core-plans.js';
import { CoreInstance, coreHolding, writeFold } from './instance.js';

/** Most cores lent out at once to hold records in place; beyond that, cut records wait in JS. */
const MAX_LEASED = 8;
/**
 * Most cores kept free: two of any size for calls (one, and one for a call
 * made from inside another), and one of at most KEEP_BELOW for each lease
 * there may be, so that the cores that held records come back to the pool
 * rather than each new lending making an instance, and what the pool keeps
 * past the two stays under MAX_LEASED × KEEP_BELOW (32 MiB).
 *
 * PERF NOTE: with two kept, 16 streams of 768 KiB frames fed 64 KiB chunks
 * in turn (a TCP relay with 16 clients) made 7 instances a round of 128 MiB,
 * each growing fresh memory: 24.7 page faults a MiB, 0.89 ns CPU a byte.
 */
const MAX_FREE = MAX_LEASED + 2;
/** A free core this small is always kept. */
const KEEP_BELOW = 4 * 1024 * 1024;
/** How many lendings "recent" spans, for the shrink rule. */
const RECENT = 16;

/**
 * Core instances of one module: at most MAX_FREE kept free (deeper
 * nesting makes throwaway instances).
 *
 * # Lent for a call, or leased for a record
 *
 * acquire/release lend a core for one call. lease/endLease lend one for as
 * long as a record cut across chunks takes to arrive, so its bytes go
 * straight into scratch, once, where the core will scan them. Leases are
 * taken only from free cores and at most MAX_LEASED at a time: a relay with
 * thousands of streams never makes thousands of instances (whose memories
 * can only grow); the streams past the cap hold their records in JS.
 *
 * # Memory shrinks back after an outsized record
 *
 * WebAssembly memory never shrinks, so a released core whose memory is more
 * than twice what recent lendings needed (and more than KEEP_BELOW) is let
 * go instead of kept, and the next lending makes a fresh, small one.
 */
export class CorePool {
  private readonly free: CoreInstance[] = [];
  private leased = 0;
  /** A lease whose reader was dropped mid-record (never ended) is counted back when the reader is collected. */
  private readonly abandoned =
    typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry<null>(() => {
          this.leased--;
        })
      : null;
  private peak = 0;
  private lastPeak = 0;
  private lendings = 0;

  constructor(private readonly module: WebAssembly.Module) {
    this.free.push(this.create());
  }

  private create(): CoreInstance {
    return new CoreInstance(new WebAssembly.Instance(this.module, {}));
  }

  acquire(): CoreInstance {
    return this.free.pop() ?? this.create();
  }

  release(core: CoreInstance): void {
    this.peak = Math.max(this.peak, core.peak);
    if (++this.lendings === RECENT) {
      this.lastPeak = this.peak;
      this.peak = 0;
      this.lendings = 0;
    }
    const recent = Math.max(this.peak, this.lastPeak);
    core.peak = 0;
    if (core.capacity > KEEP_BELOW && core.capacity > 2 * recent) return;
    if (this.free.length < 2 || (this.free.length < MAX_FREE && core.capacity <= KEEP_BELOW)) this.free.push(core);
  }

  /** A free core for a record held in place, or null when none is free or the cap is reached. `holder` is watched for being dropped. */
  lease(holder: object): CoreInstance | null {
    if (this.leased >= MAX_LEASED || this.free.length === 0) return null;
    this.leased++;
    this.abandoned?.register(holder, null, holder);
    return this.free.pop()!;
  }

  endLease(core: CoreInstance, holder: object): void {
    this.abandoned?.unregister(holder);
    this.leased--;
    this.release(core);
  }
}

/**
 * The most bytes of a chunk scanned in one call, unless the frame limit
 * allows larger records: scratch holds one whole record anyway, so a window
 * that size costs no more memory, and a record is never cut by a window.
 */
const WINDOW = 1 << 20;

/** One scan over a core: a run copied into scratch, or a record already there. Reused by its kernel. */
class CoreScan implements Scan {
  count = 0;
  table: Int32Array = EMPTY_I32;
  stop: Int32Array = EMPTY_I32;
  bytes: Uint8Array = EMPTY;
  base = 0;
  private core: CoreInstance | null = null;
  private length = 0;
  private maxFrame = 0;
  private verify = false;
  private fold: (() => Fold | null) | null = null;
  /** The record holding the core under a lease, or null for a core lent for this scan only. */
  private leased: object | null = null;

  /** `plan`: the table result frames are judged by in the scan (ReaderLimits.schema's), or null. */
  constructor(
    private readonly pool: CorePool,
    private readonly plan: Int32Array | null,
  ) {}

  /** Scans scratch[0, length) of `core`; `leased` says how to give it back. */
  start(core: CoreInstance, length: number, maxFrame: number, verify: boolean, leased: object | null, fold: (() => Fold | null) | null = null): this {
    this.core = core;
    this.fold = fold;
    this.length = length;
    this.maxFrame = maxFrame;
    this.verify = verify;
    this.leased = leased;
    this.bytes = core.bytes;
    this.table = core.table;
    this.stop = core.stop;
    this.run(0);
    return this;
  }

  private run(at: number): void {
    const core = this.core!;
    this.base = core.scratch + at;
    // Asked before every call: after a full table the sink has taken the entries so far, and its channels changed.
    writeFold(core, this.fold === null ? null : this.fold());
    const plan = this.plan === null ? -1 : core.planAddress(this.plan);
    this.count = core.exports.scanRecords(this.base, this.length - at, this.maxFrame, this.verify ? 1 : 0, plan < 0 ? 0 : plan);
  }

  more(): void {
    this.run(this.base - this.core!.scratch + (this.stop[1] >>> 0));
  }

  done(): void {
    const core = this.core;
    if (!core) return;
    this.core = null;
    this.fold = null;
    this.bytes = EMPTY;
    if (this.leased) this.pool.endLease(core, this.leased);
    else this.pool.release(core);
    this.leased = null;
  }
}

/** A record cut across chunks, held in the scratch of a leased core until it is whole. */
class LeasedRecord implements InPlaceRecord {
  length = 0;
  private core: CoreInstance | null = null;

  constructor(
    private readonly pool: CorePool,
    private readonly scanner: CoreScan,
  ) {}

  /** Takes a core under lease; false when none can be had now. */
  take(): boolean {
    this.core = this.pool.lease(this);
    return this.core !== null;
  }

  append(bytes: Uint8Array, start: number, end: number): void {
    const core = this.core!;
    core.reserve(this.length + (end - start));
    core.bytes.set(end - start === bytes.length ? bytes : bytes.subarray(start, end), core.scratch + this.length);
    this.length += end - start;
  }

  scan(maxFrame: number, verify: boolean): Scan {
    const core = this.core!;
    this.core = null;
    return this.scanner.start(core, this.length, maxFrame, verify, this);
  }

  release(): void {
    if (this.core) this.pool.endLease(this.core, this);
    this.core = null;
  }
}

/** A scan kernel over the pool: one per reader, holding a core only while one scan's entries are read, or one record arrives. */
class WasmKernel implements ScanKernel {
  private readonly scanner: CoreScan;
  private readonly heldScanner: CoreScan;

  /** `schema`: ReaderLimits.schema, judged in each scan where the core has a table for it. */
  constructor(
    private readonly pool: CorePool,
    schema?: object,
  ) {
    const plan = schema === undefined ? null : tableOf(schema);
    this.scanner = new CoreScan(pool, plan);
    this.heldScanner = new CoreScan(pool, plan);
  }

  window(maxFrame: number): number {
    return Math.max(WINDOW, Math.min(maxFrame + HEADER_SIZE, 2 ** 31));
  }

  scan(bytes: Uint8Array, from: number, to: number, maxFrame: number, verify: boolean, fold: (() => Fold | null) | null = null): Scan {
    const core = this.pool.acquire();
    core.reserve(to - from);
    core.bytes.set(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to), core.scratch);
    return this.scanner.start(core, to - from, maxFrame, verify, null, fold);
  }

  holdInPlace(prefix: Uint8Array, start: number, end: number): InPlaceRecord | null {
    const record = new LeasedRecord(this.pool, this.heldScanner);
    if (!record.take()) return null;
    record.append(prefix, start, end);
    return record;
  }
}

const EMPTY = new Uint8Array(0);
const EMPTY_I32 = new Int32Array(0);

const encoder = new TextEncoder();

/**
 * The core's answers about strings (assembly/base64.ts, assembly/string-end.ts).
 * Bytes that already lie in a core's memory (a frame verifyHeld holds, a
 * record a scan is reading) are read there; other bytes are copied into
 * the scratch of a core lent for the call.
 */
function coreStrings(pool: CorePool): StringKit {
  return {
    base64Bytes(bytes, start, end) {
      const held = coreHolding(bytes);
      if (held) return held.exports.checkBase64(bytes.byteOffset + start, end - start, 1) === 1;
      const core = pool.acquire();
      try {
        core.write(bytes.subarray(start, end));
        return core.exports.checkBase64(core.scratch, end - start, 1) === 1;
      } finally {
        pool.release(core);
      }
    },
    base64String(s) {
      const core = pool.acquire();
      try {
        core.reserve(s.length);
        const at = core.scratch;
        const { read, written } = encoder.encodeInto(s, core.bytes.subarray(at, at + s.length));
        // Every unit outside ASCII takes two bytes or more, so a string that does not fit whole in one byte per unit has one: not base64.
        if (read !== s.length) return false;
        return core.exports.checkBase64(at, written, 0) === 1;
      } finally {
        pool.release(core);
      }
    },
    stringEnd(bytes, from) {
      const held = coreHolding(bytes);
      if (!held) return -1;
      const at = held.exports.stringEnd(bytes.byteOffset + from, bytes.length - from);
      return at < 0 ? -1 : from + at;
    },
    alphabetRun(bytes, from) {
      const held = coreHolding(bytes);
      return held ? from + held.exports.base64Run(bytes.byteOffset + from, bytes.length - from) : -1;
    },
  };
}

/** verifyFrame's answer on the payload of `length` bytes written to `core`'s scratch. */
function verifyWritten(core: CoreInstance, length: number): Fault | null {
  const status = core.exports.verifyFrame(core.scratch, length);
  return status === Status.Ok ? null : frameFault(status, core.exports.faultOffset());
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
        return verifyWritten(core, payload.length);
      } finally {
        pool.release(core);
      }
    },
    screenFrame(payload) {
      const core = pool.acquire();
      try {
        core.write(payload);
        if (core.exports.screenFrame(core.scratch, payload.length) === 1) return SCREENED;
        return verifyWritten(core, payload.length);
      } finally {
        pool.release(core);
      }
    },
    verifyHeld(payload, then) {
      const core = pool.acquire();
      try {
        core.write(payload);
        return then(core.bytes.subarray(core.scratch, core.scratch + payload.length), verifyWritten(core, payload.length));
      } finally {
        pool.release(core);
      }
    },
    strings: coreStrings(pool),
    provenRun(schema, bytes, at, count) {
      const core = coreHolding(bytes);
      const table = core && tableOf(schema);
      const plan = table ? core!.planAddress(table) : -1;
      return plan < 0 ? 0 : core!.exports.judgeRun(bytes.byteOffset + at, count, plan);
    },
    provenFrame(schema, bytes, start, end) {
      // The tag, then a body: a result's table proves nothing about an error object.
      if (end - start < 2 || bytes[start] !== TAG_RESULT) return false;
      const core = coreHolding(bytes);
      const table = core && tableOf(schema);
      const plan = table ? core!.planAddress(table) : -1;
      return plan >= 0 && core!.exports.judgeBody(bytes.byteOffset + start + 1, end - start - 1, plan) === 1;
    },
    createKernel: () => new WasmKernel(pool),
    createReader: (limits, sink) => new RecordReader(new WasmKernel(pool, limits.verify === false ? undefined : limits.schema), limits, sink),
  };
}
