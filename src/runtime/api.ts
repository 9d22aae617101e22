// What every entry of the package exports: the library, the backend the host chose, and when it chose.
//
// The entries differ only in how they load the core (src/runtime/<host>.ts);
// what a caller imports is the same everywhere, so package.json's one
// "types" condition describes them all, loadBackend included: each entry
// hands its own builds to it.

export * from '../index.js';
export { backend, ready, loadBackend } from './selection.js';
export { BACKEND_CHOICES, BackendUnavailableError, type BackendChoice } from '../backend/loader.js';
