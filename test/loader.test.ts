// Backends by name: each build compiled once, SIMD falling back to scalar, 'auto' to js.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBackend } from '../src/backend/builds.js';
import { BackendUnavailableError, createLoader } from '../src/backend/loader.js';
import { jsBackend } from '../src/backend/js.js';

const build = (name: string) => new Uint8Array(fs.readFileSync(path.resolve(import.meta.dirname, `../build/core-${name}.wasm`)));

describe('loadBackend', () => {
  it('compiles each build once, whichever name asks', () => {
    expect(loadBackend('wasm')).toBe(loadBackend('wasm-simd'));
    expect(loadBackend('auto')).toBe(loadBackend('wasm-simd'));
    expect(loadBackend('js')).toBe(jsBackend);
    expect(() => loadBackend('fast' as never)).toThrow(RangeError);
  });

  it("falls back from SIMD to scalar, and 'auto' to js", () => {
    let compiled = 0;
    const scalarOnly = createLoader((name) => {
      if (name === 'simd') throw new BackendUnavailableError('no simd file here');
      compiled++;
      return build('scalar');
    });
    expect(scalarOnly('wasm').name).toBe('wasm-scalar');
    expect(scalarOnly('auto').name).toBe('wasm-scalar');
    expect(() => scalarOnly('wasm-simd')).toThrow(BackendUnavailableError);
    expect(compiled).toBe(1);

    const none = createLoader(() => {
      throw new BackendUnavailableError('no builds');
    });
    expect(none('auto')).toBe(jsBackend);
    expect(() => none('wasm')).toThrow(BackendUnavailableError);

    const broken = createLoader(() => Uint8Array.of(0, 1, 2, 3));
    expect(() => broken('wasm-scalar')).toThrow(BackendUnavailableError);
  });
});
