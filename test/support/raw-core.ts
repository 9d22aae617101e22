// A core instance of a test's own, built from build/core-*.wasm, for the exports the backends do not use (stagedVerdict, bulkProven) and for calls on its memory as it lies.

import fs from 'node:fs';
import path from 'node:path';

/** The exports of assembly/index.ts that the tests call directly. */
export interface RawCore {
  memory: WebAssembly.Memory;
  scratch(): number;
  verifyFrame(ptr: number, length: number): number;
  stagedVerdict(ptr: number, length: number): number;
  foldBlock(): number;
  recordTable(): number;
  stopBlock(): number;
  scanRecords(ptr: number, length: number, maxFrame: number, verify: number): number;
  bulkProven(): number;
}

/** A fresh instance of one core build. */
export function rawCore(build: 'simd' | 'scalar'): RawCore {
  const bytes = fs.readFileSync(path.resolve(import.meta.dirname, `../../build/core-${build}.wasm`));
  return new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as RawCore;
}

/** Writes `bytes` at the core's scratch, growing its memory as needed; returns their address. */
export function writeScratch(core: RawCore, bytes: Uint8Array): number {
  const need = core.scratch() + bytes.length;
  const have = core.memory.buffer.byteLength;
  if (need > have) core.memory.grow(Math.ceil((need - have) / 65536));
  new Uint8Array(core.memory.buffer).set(bytes, core.scratch());
  return core.scratch();
}
