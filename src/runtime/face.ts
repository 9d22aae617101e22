// What every entry of the package exports: the library, the backend the host chose, and when it chose.
//
// The entries differ only in how they load the core (src/runtime/<host>.ts);
// what a caller imports is the same everywhere, so package.json's one
// "types" condition describes them all. The Node entry adds its loader
// (loadBackend and friends) on top.

export * from '../index.js';
export { backend, ready } from './choice.js';
