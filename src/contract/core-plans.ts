// Schemas' tables for the core's proof of acceptance (judge-table.ts), by schema, without loading the SDK.
//
// A backend reaches them from here; the module that knows the compiled
// judges (schema.ts) says how to make one, so that only a process that has
// codecs, and so the SDK, makes tables.

let maker: ((schema: object) => Int32Array | undefined) | undefined;
const tables = new WeakMap<object, Int32Array | null>();

/** How to make a schema's table (schema.ts sets it). */
export function setTableMaker(make: (schema: object) => Int32Array | undefined): void {
  maker = make;
}

/** The table of `schema`'s compiled judge, made once; null when it has none. */
export function tableOf(schema: object): Int32Array | null {
  let table = tables.get(schema);
  if (table === undefined) {
    if (maker === undefined) return null;
    table = maker(schema) ?? null;
    tables.set(schema, table);
  }
  return table;
}
