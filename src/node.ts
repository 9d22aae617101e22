// The Node entry: the whole library, with the backend chosen at load.
//
// 'auto' picks the SIMD core where this Node runs it, else the scalar core,
// else the pure-JS path, once; `backend` says which won.

import { loadBackend } from './backend/node.js';
import { setDefaultBackend } from './backend/default.js';

export * from './index.js';
export { loadBackend, BackendUnavailableError, BACKEND_CHOICES, type BackendChoice } from './backend/node.js';

const chosen = loadBackend('auto');
setDefaultBackend(chosen);

/** The backend 'auto' chose in this process: 'wasm-simd', 'wasm-scalar' or 'js'. */
export const backend = chosen.name;
