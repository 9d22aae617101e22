// One instance of the core, and the views JS reads and writes it through.
//
// # Memory shared with JS
//
// The core exports its memory; this file owns the scratch region above the
// core's static data. Input bytes are copied straight into scratch (one
// copy: the boundary's price), and the core reads them where they lie.
// Scratch grows in steps of at least 1 MiB, and every view is made again
// after a growth, because growing detaches the old ArrayBuffer.

import { ENTRY_FIELDS, FOLD_MAX, type Fold } from '../../records/reader.js';

/** The exports of build/core-*.wasm (assembly/index.ts). */
export interface CoreExports {
  readonly memory: WebAssembly.Memory;
  checkBase64(ptr: number, length: number, json: number): number;
  stringEnd(ptr: number, length: number): number;
  base64Run(ptr: number, length: number): number;
  scratch(): number;
  recordTable(): number;
  stopBlock(): number;
  foldBlock(): number;
  tableCapacity(): number;
  entryFields(): number;
  foldMax(): number;
  verifyFrame(ptr: number, length: number): number;
  screenFrame(ptr: number, length: number): number;
  faultOffset(): number;
  scanRecords(ptr: number, length: number, maxFrame: number, verify: number, plan: number): number;
  planBlock(): number;
  planCapacity(): number;
  judgeRun(ptr: number, count: number, plan: number): number;
  judgeBody(ptr: number, length: number, plan: number): number;
}

/**
 * Each export of CoreExports, with its kind: a module without one of them is
 * not the core, and is refused by name before it is instantiated.
 */
export const CORE_EXPORTS = [
  ['memory', 'memory'],
  ['scratch', 'function'],
  ['recordTable', 'function'],
  ['stopBlock', 'function'],
  ['foldBlock', 'function'],
  ['tableCapacity', 'function'],
  ['entryFields', 'function'],
  ['foldMax', 'function'],
  ['verifyFrame', 'function'],
  ['screenFrame', 'function'],
  ['faultOffset', 'function'],
  ['scanRecords', 'function'],
  ['checkBase64', 'function'],
  ['stringEnd', 'function'],
  ['base64Run', 'function'],
  ['planBlock', 'function'],
  ['planCapacity', 'function'],
  ['judgeRun', 'function'],
  ['judgeBody', 'function'],
] as const satisfies ReadonlyArray<readonly [keyof CoreExports, WebAssembly.ImportExportKind]>;

/** Each instance by its memory's current buffer: which core, if any, holds the bytes a view looks at. */
const MEMORIES = new WeakMap<ArrayBufferLike, CoreInstance>();

/** The core whose memory `bytes` is a view of, or undefined. */
export function coreHolding(bytes: Uint8Array): CoreInstance | undefined {
  return MEMORIES.get(bytes.buffer);
}

/** The fold block: i32 count, u32 open limit, f64 held, f64 held limit, FOLD_MAX u32 ids, FOLD_MAX f64 lengths. */
const FOLD_I32S = 6 + FOLD_MAX;
const FOLD_F64S = 3 + FOLD_MAX / 2 + FOLD_MAX;

/**
 * Writes `fold` (or no folding, for null) into `core`'s fold block, where
 * the next scanRecords reads it.
 */
export function writeFold(core: CoreInstance, fold: Fold | null): void {
  const i32 = core.foldI32;
  if (fold === null || fold.count < 0) {
    i32[0] = -1;
    return;
  }
  const f64 = core.foldF64;
  const count = fold.count;
  i32[0] = count;
  i32[1] = fold.maxOpen | 0; // at most 2^32 - 1 (resolveLimits): the core reads it unsigned
  f64[1] = fold.held;
  f64[2] = fold.maxHeld;
  for (let k = 0; k < count; k++) {
    i32[6 + k] = fold.ids[k] | 0;
    f64[3 + FOLD_MAX / 2 + k] = fold.lengths[k];
  }
}

const PAGE = 65536;
const GROWTH_STEP = 16 * PAGE; // 1 MiB
/** The largest memory a 32-bit WebAssembly instance can have: 65536 pages, 4 GiB. */
export const MAX_PAGES = 65536;

/**
 * Pages to grow a memory of `havePages` by so that it holds `needBytes`:
 * what is missing, at least 1 MiB, at least a quarter more, but never past
 * MAX_PAGES, so that a record that fits in 4 GiB gets the memory it needs
 * however it arrived (grown a quarter at a time from 64 KiB pieces, a
 * record of 3.4 GiB overshot the limit and was refused). -1 when no growth
 * of 32-bit memory can hold it.
 */
export function growthPages(havePages: number, needBytes: number): number {
  const needPages = Math.ceil(needBytes / PAGE);
  if (needPages > MAX_PAGES) return -1;
  if (needPages <= havePages) return 0;
  return Math.min(Math.max(needPages - havePages, GROWTH_STEP / PAGE, Math.ceil(havePages / 4)), MAX_PAGES - havePages);
}

export class CoreInstance {
  readonly exports: CoreExports;
  /** Where scratch starts. */
  readonly scratch: number;
  readonly tableCapacity: number;
  readonly entryFields: number;
  private readonly tableAt: number;
  private readonly stopAt: number;
  private readonly foldAt: number;
  /** The memory's bytes; made again after every growth. */
  bytes!: Uint8Array;
  /** The record table as i32s; made again after every growth. */
  table!: Int32Array;
  /** The stop block as i32s; made again after every growth. */
  stop!: Int32Array;
  /** The fold block (assembly/records.ts) as i32s and as f64s; made again after every growth. */
  foldI32!: Int32Array;
  foldF64!: Float64Array;
  /** The tables written to the plan area (assembly/plan.ts), by table, at their addresses; and the area's first byte free. */
  private readonly plans = new Map<Int32Array, number>();
  private planFill = 0;
  /** Bytes of memory, kept here: reading memory.buffer.byteLength costs more than the check. */
  capacity = 0;
  /** The most scratch asked of this instance since it was last lent out (for the pool's shrink rule). */
  peak = 0;

  constructor(instance: WebAssembly.Instance) {
    this.exports = instance.exports as unknown as CoreExports;
    this.scratch = this.exports.scratch();
    this.tableCapacity = this.exports.tableCapacity();
    this.entryFields = this.exports.entryFields();
    // The record table and the fold block are laid out in assembly/records.ts and read here by the same numbers.
    const foldMax = this.exports.foldMax();
    if (this.entryFields !== ENTRY_FIELDS || foldMax !== FOLD_MAX)
      throw new Error(
        `the core's record layout (${this.entryFields} fields an entry, ${foldMax} fold slots) is not this package's (${ENTRY_FIELDS}, ${FOLD_MAX}): a core from another build`,
      );
    this.tableAt = this.exports.recordTable();
    this.stopAt = this.exports.stopBlock();
    this.foldAt = this.exports.foldBlock();
    this.refreshViews();
  }

  private refreshViews(): void {
    const buffer = this.exports.memory.buffer;
    MEMORIES.set(buffer, this);
    this.capacity = buffer.byteLength;
    this.bytes = new Uint8Array(buffer);
    this.table = new Int32Array(buffer, this.tableAt, this.tableCapacity * this.entryFields);
    this.stop = new Int32Array(buffer, this.stopAt, 8);
    this.foldI32 = new Int32Array(buffer, this.foldAt, FOLD_I32S);
    this.foldF64 = new Float64Array(buffer, this.foldAt, FOLD_F64S);
  }

  /** Makes scratch hold at least `size` bytes (see growthPages); a RangeError when the memory cannot be had. */
  reserve(size: number): void {
    if (size > this.peak) this.peak = size;
    const need = this.scratch + size;
    const have = this.capacity;
    if (need <= have) return;
    const cannotGrow = () => new RangeError(`mcp-frames: the WebAssembly core cannot grow to ${need} bytes of memory`);
    const pages = growthPages(have / PAGE, need);
    if (pages < 0) throw cannotGrow();
    try {
      this.exports.memory.grow(pages);
    } catch {
      throw cannotGrow();
    }
    this.refreshViews();
  }

  /**
   * The address of `table` in the plan area, written there the first time;
   * -1 when it does not fit. A full area is cleared and filled again.
   */
  planAddress(table: Int32Array): number {
    const known = this.plans.get(table);
    if (known !== undefined) return known;
    const capacity = this.exports.planCapacity();
    if (table.byteLength > capacity) return -1;
    if (this.planFill + table.byteLength > capacity) {
      this.plans.clear();
      this.planFill = 0;
    }
    const at = this.exports.planBlock() + this.planFill;
    this.bytes.set(new Uint8Array(table.buffer, table.byteOffset, table.byteLength), at);
    this.planFill += (table.byteLength + 15) & ~15;
    this.plans.set(table, at);
    return at;
  }

  /** Copies `bytes` to scratch + at, growing scratch first when needed. */
  write(bytes: Uint8Array, at = 0): void {
    this.reserve(at + bytes.length);
    this.bytes.set(bytes, this.scratch + at);
  }
}
