#!/usr/bin/env node
// Writes src/contract/generated/judges.ts: a plain-JS judge for each SDK
// schema a codec uses (and the JSON-RPC error object), compiled from the
// SDK's own zod schemas. `npm run build` runs it before tsc, so a new SDK
// gives new judges, and test/schema-judge.test.ts holds them to safeParse.
//
// # Why walk the zod schemas, not z.toJSONSchema()
//
// A judge must give safeParse's verdict and safeParse's FIRST issue, path
// and message. JSON Schema keeps the verdict (mostly) and loses the rest:
// zod's key order, which is the order issues come in; which issues abort,
// which decides what a union reports; the refinement behind Base64Schema.
// The zod nodes carry all of it, and zod's own code (core/schemas.js) says
// what each does with a value, so the generator reads the nodes and writes
// code that does the same in the same order, stopping at the first issue.
//
// # What each node becomes
//
// Each node the roots reach gets two functions in the output:
//
//   o<id>(x): boolean             the verdict, allocation-free: the hot path
//   w<id>(x): Fault | undefined   the first issue and whether zod's list
//                                 for x aborted; run only once o<id> said no
//
// Objects, arrays, unions, records, optional/default/nullable wrappers, the
// SDK's object assertion (z.custom) and Base64Schema are compiled. Leaves
// (strings, numbers, literals, enums, booleans) get an inlined verdict and
// hand the issue to zod itself (zodWhy), which is exact by construction and
// cheap for a leaf. Anything else (a transform, a preprocess, an unknown
// refinement, an intersection, a discriminated union) becomes an "island":
// both functions call the SDK's schema for that sub-tree.
//
// Each node is reached from an exported SDK schema by a path that the
// output checks at load against the node's signature (judge-kit.ts), so a
// different SDK at run time makes the module refuse to load rather than
// judge by stale rules.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import ts from 'typescript';
import { util } from 'zod/v4/core';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'src', 'contract', 'generated', 'judges.ts');

/** The schemas judged: every endpoint codec's result (src/frame/endpoints.ts), then the error object. */
const ROOTS = [
  'ListResourcesResultSchema',
  'ReadResourceResultSchema',
  'ListResourceTemplatesResultSchema',
  'ListToolsResultSchema',
  'CallToolResultSchema',
  'ListPromptsResultSchema',
  'GetPromptResultSchema',
  'CompleteResultSchema',
];
// The SDK's name for the error response since 1.25.0, else the one before it (src/contract/schema.ts reads it the same way), so
// that the judges load, and find they drifted, under an SDK older than the one they were generated from.
const ERROR_ROOT = {
  name: 'ErrorObject',
  node: sdk.JSONRPCErrorResponseSchema.shape.error,
  expr: '(sdk.JSONRPCErrorResponseSchema ?? sdk.JSONRPCErrorSchema).shape.error',
};

/**
 * Refinements whose source the generator knows, by what they do. A
 * refinement with any other source is an island: zod runs it.
 */
/** @type {(node: unknown) => any} zod's internals, read member by member */
const def = (node) => /** @type {any} */ (node)._zod.def;
const KNOWN_FNS = new Map([
  // Base64Schema: z.string().refine(val => { try { atob(val); return true } catch { return false } })
  [String(def(def(sdk.BlobResourceContentsSchema.shape.blob).checks[0]).fn), 'base64'],
  // AssertObjectSchema: z.custom(v => v !== null && (typeof v === 'object' || typeof v === 'function'))
  [String(def(def(def(sdk.ToolSchema.shape.inputSchema.shape.properties).innerType).valueType).fn), 'assert-object'],
]);
for (const [source, name] of KNOWN_FNS) {
  const atob = name === 'base64' ? source.includes('atob(') : source.includes("typeof v === 'object'");
  if (!atob) throw new Error(`gen-judges: the SDK's ${name} refinement is not what this generator knows:\n${source}`);
}

// ---------------------------------------------------------------------------
// The signature: src/contract/signature.ts, the one the generated module
// checks at load. It runs here before tsc has compiled anything, so it is
// transpiled on the spot; it imports nothing, so it runs from a data: URL.

const { signature } = await import(
  `data:text/javascript;base64,${Buffer.from(
    ts.transpileModule(readFileSync(join(ROOT, 'src', 'contract', 'signature.ts'), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText,
  ).toString('base64')}`
);

/**
 * The source of a module of judges for `spec.roots`: each root is a zod
 * schema, its name, and the expression that reaches it in the output from
 * `import * as sdk from spec.source`. `spec.kit` is where the output finds
 * base64.js, judge-kit.js and judge-node.js.
 *
 * @param {{ roots: { name: string, node: any, expr: string }[], source: string, kit: string, header: string[] }} spec
 * @returns {{ code: string, nodes: number, counts: Record<string, number> }}
 */
export function generate(spec) {
  // ---------------------------------------------------------------------------
  // Classification: what the generator compiles, and what it leaves to zod.

  const traitsOf = (node) => [...node._zod.traits].filter((t) => t.startsWith('$')).join(',');
  const checksOf = (node) => (node._zod.traits.has('$ZodCheck') ? [node, ...(node._zod.def.checks ?? [])] : (node._zod.def.checks ?? []));
  const isPrimitive = (v) => v === null || ['string', 'boolean'].includes(typeof v) || (typeof v === 'number' && !Number.isNaN(v));

  /** The inlined verdict of a leaf on the variable `x`, or null when only zod can give it. */
  function leafTest(node, x = 'x') {
    const test = leafTestOnX(node);
    return test === null ? null : test.replace(/\bx\b/g, x);
  }

  function leafTestOnX(node) {
    const d = node._zod.def;
    if (d.coerce) return null;
    const traits = traitsOf(node);
    const checks = checksOf(node);
    switch (d.type) {
      case 'boolean':
        return traits === '$ZodBoolean,$ZodType' && checks.length === 0 ? "typeof x === 'boolean'" : null;
      case 'null':
        return traits === '$ZodNull,$ZodType' && checks.length === 0 ? 'x === null' : null;
      case 'literal':
      case 'enum': {
        if (traits !== (d.type === 'literal' ? '$ZodLiteral,$ZodType' : '$ZodEnum,$ZodType') || checks.length) return null;
        const values = d.type === 'literal' ? d.values : util.getEnumValues(d.entries);
        if (!values.length || !values.every(isPrimitive)) return null;
        return `(${values.map((v) => `x === ${JSON.stringify(v)}`).join(' || ')})`;
      }
      case 'string': {
        const tests = ["typeof x === 'string'"];
        for (const [k, c] of checks.entries()) {
          const cd = c._zod.def;
          if (cd.when) return null;
          if (cd.check === 'string_format' && cd.pattern instanceof RegExp && cd.format !== 'regex' && c._zod.traits.has('$ZodCheckStringFormat')) {
            const reset = cd.pattern.global || cd.pattern.sticky ? `((${patternRef(node, k)}.lastIndex = 0), true) && ` : '';
            tests.push(`${reset}${patternRef(node, k)}.test(x)`);
          } else return null;
        }
        if (traits !== '$ZodString,$ZodType' && !(checks[0] === node && traits.startsWith('$ZodISO'))) return null;
        return tests.join(' && ');
      }
      case 'number': {
        if (traits !== '$ZodNumber,$ZodType') return null;
        const tests = ["typeof x === 'number' && Number.isFinite(x)"];
        for (const c of checks) {
          const cd = c._zod.def;
          if (cd.when) return null;
          if (cd.check === 'number_format' && util.NUMBER_FORMAT_RANGES[cd.format]) {
            const [lo, hi] = util.NUMBER_FORMAT_RANGES[cd.format];
            if (cd.format.includes('int')) tests.push('Number.isSafeInteger(x)');
            if (lo > Number.MIN_SAFE_INTEGER || !cd.format.includes('int')) tests.push(`x >= ${lo}`);
            if (hi < Number.MAX_SAFE_INTEGER || !cd.format.includes('int')) tests.push(`x <= ${hi}`);
          } else if (cd.check === 'greater_than' && typeof cd.value === 'number') tests.push(`x ${cd.inclusive ? '>=' : '>'} ${cd.value}`);
          else if (cd.check === 'less_than' && typeof cd.value === 'number') tests.push(`x ${cd.inclusive ? '<=' : '<'} ${cd.value}`);
          else return null;
        }
        return tests.join(' && ');
      }
      default:
        return null;
    }
  }

  const patterns = [];
  const patternIds = new Map();
  function patternRef(node, k) {
    const key = `${ids.get(node)}:${k}`;
    if (!patternIds.has(key)) {
      patterns.push({ node, k });
      patternIds.set(key, `P${patterns.length - 1}`);
    }
    return patternIds.get(key);
  }

  /** How the generator treats a node. */
  function classify(node) {
    const d = node._zod.def;
    const traits = traitsOf(node);
    const checks = checksOf(node);
    switch (d.type) {
      case 'unknown':
      case 'any':
        if ((traits === '$ZodUnknown,$ZodType' || traits === '$ZodAny,$ZodType') && checks.length === 0) return 'unknown';
        break;
      case 'object': {
        const catchall = d.catchall?._zod.def.type;
        const plainCatchall = !d.catchall || ['unknown', 'any', 'never'].includes(catchall);
        const keysOk = Object.keys(d.shape).every((k) => k !== '__proto__' && !(k in Object.prototype));
        const noSymbols = Object.getOwnPropertySymbols(d.shape).length === 0;
        if (['$ZodObjectJIT,$ZodObject,$ZodType', '$ZodObject,$ZodType'].includes(traits) && !checks.length && plainCatchall && keysOk && noSymbols) {
          if (d.catchall && catchall !== 'never' && checksOf(d.catchall).length) break;
          return 'object';
        }
        break;
      }
      case 'array':
        if (traits === '$ZodArray,$ZodType' && checks.every((c) => c._zod.def.check === 'max_length' && c._zod.traits.has('$ZodCheckMaxLength')))
          return 'array';
        break;
      case 'union':
        if (traits === '$ZodUnion,$ZodType' && !checks.length && d.inclusive === undefined && d.discriminator === undefined) return 'union';
        break;
      case 'optional':
        if (traits === '$ZodOptional,$ZodType' && !checks.length) return 'optional';
        break;
      case 'default':
        if (traits === '$ZodDefault,$ZodType' && !checks.length) return 'default';
        break;
      case 'nullable':
        if (traits === '$ZodNullable,$ZodType' && !checks.length) return 'nullable';
        break;
      case 'record': {
        const k = d.keyType;
        const plainKey = k._zod.def.type === 'string' && traitsOf(k) === '$ZodString,$ZodType' && !checksOf(k).length && !k._zod.def.coerce;
        if (traits === '$ZodRecord,$ZodType' && !checks.length && plainKey && d.mode === undefined && !k._zod.values) return 'record';
        break;
      }
      case 'custom':
        if (traits === '$ZodCustom,$ZodCheck,$ZodType' && checks.length === 1 && !d.when && KNOWN_FNS.get(String(d.fn)) === 'assert-object')
          return 'assert-object';
        break;
      case 'string':
        if (
          traits === '$ZodString,$ZodType' &&
          !d.coerce &&
          checks.length === 1 &&
          checks[0]._zod.def.check === 'custom' &&
          !checks[0]._zod.def.when &&
          KNOWN_FNS.get(String(checks[0]._zod.def.fn)) === 'base64'
        ) {
          return 'base64';
        }
        break;
    }
    return leafTest(node) === null ? 'island' : 'leaf';
  }

  // ---------------------------------------------------------------------------
  // The walk: ids, and each node's hop from the node that first reached it.

  const ids = new Map(); // node -> id
  const nodes = []; // { node, kind, from, member, sub }

  function visit(node, from, member, sub) {
    if (ids.has(node)) return ids.get(node);
    const id = nodes.length;
    ids.set(node, id);
    const kind = classify(node);
    const entry = { node, kind, from, member, sub };
    nodes.push(entry);
    const d = node._zod.def;
    switch (kind) {
      case 'object':
        entry.keys = Object.keys(d.shape).map((key) => ({ key, child: visit(d.shape[key], id, 'shape', key) }));
        entry.strict = d.catchall?._zod.def.type === 'never';
        break;
      case 'array':
        entry.element = visit(d.element, id, 'element');
        break;
      case 'union':
        entry.options = d.options.map((o, k) => visit(o, id, 'options', k));
        break;
      case 'optional':
      case 'default':
      case 'nullable':
        entry.inner = visit(d.innerType, id, 'innerType');
        break;
      case 'record':
        entry.value = visit(d.valueType, id, 'valueType');
        break;
      case 'base64':
        entry.check = { from: id, member: 'checks', sub: 0 };
        break;
    }
    return id;
  }

  const roots = spec.roots.map((r) => ({ ...r, id: visit(r.node, null, r.expr) }));

  // ---------------------------------------------------------------------------
  // Static facts the code generation uses.

  /** Whether the node refuses `undefined` for certain: its key can then be tested by value alone. */
  function refusesUndefined(id) {
    const { node, kind } = nodes[id];
    const t = node._zod.def.type;
    if (['object', 'array', 'record', 'base64'].includes(kind)) return true;
    if (kind === 'leaf') return ['string', 'number', 'boolean', 'null', 'literal', 'enum'].includes(t) && !node._zod.values?.has(undefined);
    if (kind === 'union') return nodes[id].options.every(refusesUndefined);
    return false;
  }

  /** Whether the node takes `undefined` without an issue, for certain. */
  function takesUndefined(id) {
    const { kind } = nodes[id];
    return kind === 'optional' || kind === 'default' || kind === 'unknown';
  }

  /** A required key whose literal rules an object option in or out of a union. */
  function discriminator(id) {
    const entry = nodes[id];
    if (entry.kind !== 'object') return null;
    for (const { key, child } of entry.keys) {
      const c = nodes[child];
      const zc = c.node._zod;
      if (zc.optin !== undefined || c.kind !== 'leaf' || c.node._zod.def.type !== 'literal') continue;
      const values = c.node._zod.def.values;
      if (values.length === 1 && typeof values[0] === 'string') return { key, value: values[0] };
    }
    return null;
  }

  const prop = (key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

  // ---------------------------------------------------------------------------
  // Code.

  const out = [];
  const emit = (line = '') => out.push(line);

  function okExpr(id, x) {
    const { kind, node } = nodes[id];
    if (kind === 'unknown') return 'true';
    if (kind === 'leaf') return `(${leafTest(node, x)})`;
    return `o${id}(${x})`;
  }

  function emitObject(id) {
    const { keys, strict } = nodes[id];
    const modeOf = (child) => {
      const z = nodes[child].node._zod;
      if (z.optin !== undefined && z.optout === 'optional') return 'A';
      if (z.optin === undefined) return 'B';
      return 'C';
    };
    emit(`function o${id}(x: unknown): boolean {`);
    emit(`  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;`);
    emit('  const o = x as Rec;');
    if (keys.length) emit('  let v: unknown;');
    for (const { key, child } of keys) {
      const mode = modeOf(child);
      const k = JSON.stringify(key);
      emit(`  v = o${prop(key)};`);
      if (nodes[child].kind === 'unknown' && mode !== 'B') continue;
      if (mode === 'A') {
        if (takesUndefined(child)) emit(`  if (v !== undefined && !${okExpr(child, 'v')}) return false;`);
        else emit(`  if (v === undefined ? ${k} in o && !${okExpr(child, 'v')} : !${okExpr(child, 'v')}) return false;`);
      } else if (mode === 'B') {
        if (refusesUndefined(child)) emit(`  if (v === undefined || !${okExpr(child, 'v')}) return false;`);
        else emit(`  if (v === undefined ? !(${k} in o && ${okExpr(child, 'v')}) : !${okExpr(child, 'v')}) return false;`);
      } else emit(`  if (!${okExpr(child, 'v')}) return false;`);
    }
    if (strict) emit(`  if (unrecognized(o, K${id}) !== undefined) return false;`);
    emit('  return true;');
    emit('}');

    emit(`function w${id}(x: unknown): Fault | undefined {`);
    emit(`  if (typeof x !== 'object' || x === null || Array.isArray(x)) return typeFault(x, n${id}, 'object');`);
    emit('  const o = x as Rec;');
    emit('  let first: Fault | undefined;');
    if (keys.length) {
      emit('  let f: Fault | undefined;');
      emit('  let v: unknown;');
    }
    for (const { key, child } of keys) {
      const mode = modeOf(child);
      if (nodes[child].kind === 'unknown' && mode !== 'B') continue;
      const k = JSON.stringify(key);
      emit(`  v = o${prop(key)};`);
      if (mode === 'A') {
        const present = takesUndefined(child) ? 'v !== undefined' : `v !== undefined || ${k} in o`;
        emit(`  f = ${present} ? w${child}(v) : undefined;`);
      } else if (mode === 'B') {
        emit(`  f = w${child}(v) ?? (v === undefined && !(${k} in o) ? nonoptional() : undefined);`);
      } else emit(`  f = w${child}(v);`);
      emit('  if (f !== undefined) {');
      emit(`    first = merge(first, prefix(f, ${k}));`);
      emit('    if (first.aborted) return first;');
      emit('  }');
    }
    if (strict) {
      emit(`  const keys = unrecognized(o, K${id});`);
      emit(
        `  if (keys !== undefined) first = merge(first, fault({ code: 'unrecognized_keys', keys, input: o, inst: n${id}, continue: true }, false));`,
      );
    }
    emit('  return first;');
    emit('}');
  }

  function emitArray(id) {
    const { element, node } = nodes[id];
    const caps = util.sizeCaps(node._zod.def.checks);
    const cap = caps.length ? Math.min(...caps.map((c) => c[0])) : null;
    emit(`function o${id}(x: unknown): boolean {`);
    emit('  if (!Array.isArray(x)) return false;');
    if (cap !== null) emit(`  if (x.length > ${cap}) return false;`);
    if (nodes[element].kind !== 'unknown') emit(`  for (let i = 0; i < x.length; i++) if (!${okExpr(element, 'x[i]')}) return false;`);
    emit('  return true;');
    emit('}');
    emit(`function w${id}(x: unknown): Fault | undefined {`);
    emit(`  if (!Array.isArray(x)) return typeFault(x, n${id}, 'array');`);
    if (cap !== null) emit(`  if (x.length > ${cap}) return capFault(n${id}, x);`);
    emit('  let first: Fault | undefined;');
    if (nodes[element].kind !== 'unknown') {
      emit('  for (let i = 0; i < x.length; i++) {');
      emit(`    const f = w${element}(x[i]);`);
      emit('    if (f !== undefined) {');
      emit('      first = merge(first, prefix(f, i));');
      emit('      if (first.aborted) return first;');
      emit('    }');
      emit('  }');
    }
    emit('  return first;');
    emit('}');
    return cap;
  }

  function emitUnion(id) {
    const { options } = nodes[id];
    const guard = (o) => {
      const disc = discriminator(o);
      return disc ? `typeof x === 'object' && x !== null && (x as Rec)${prop(disc.key)} === ${JSON.stringify(disc.value)}` : null;
    };
    if (options.length === 1) {
      emit(`function o${id}(x: unknown): boolean {`);
      emit(`  return ${okExpr(options[0], 'x')};`);
      emit('}');
      emit(`function w${id}(x: unknown): Fault | undefined {`);
      emit(`  return w${options[0]}(x);`);
      emit('}');
      return;
    }
    emit(`function o${id}(x: unknown): boolean {`);
    emit(`  return ${options.map((o) => (guard(o) ? `(${guard(o)} && ${okExpr(o, 'x')})` : okExpr(o, 'x'))).join(' || ')};`);
    emit('}');
    emit(`function w${id}(x: unknown): Fault | undefined {`);
    options.forEach((o, k) => {
      const g = guard(o);
      emit(`  const f${k} = ${g ? `${g} ? w${o}(x) : RULED_OUT` : `w${o}(x)`};`);
      emit(`  if (f${k} === undefined) return undefined;`);
    });
    emit(`  return pickUnion(x, n${id}, [${options.map((_, k) => `f${k}`).join(', ')}]);`);
    emit('}');
  }

  function emitNode(id) {
    const entry = nodes[id];
    switch (entry.kind) {
      case 'unknown':
        emit(`function o${id}(_x: unknown): boolean {`);
        emit('  return true;');
        emit('}');
        emit(`function w${id}(_x: unknown): Fault | undefined {`);
        emit('  return undefined;');
        emit('}');
        return;
      case 'leaf':
        emit(`function o${id}(x: unknown): boolean {`);
        emit(`  return ${leafTest(entry.node)};`);
        emit('}');
        emit(`function w${id}(x: unknown): Fault | undefined {`);
        emit(`  return zodWhy(n${id}, x);`);
        emit('}');
        return;
      case 'island':
        emit(`// An island: ${entry.node._zod.def.type} (${traitsOf(entry.node)}) is judged by the SDK's schema itself.`);
        emit(`function o${id}(x: unknown): boolean {`);
        emit(`  return zodOk(n${id}, x);`);
        emit('}');
        emit(`function w${id}(x: unknown): Fault | undefined {`);
        emit(`  return zodWhy(n${id}, x);`);
        emit('}');
        return;
      case 'base64':
        emit(`function o${id}(x: unknown): boolean {`);
        emit(`  return typeof x === 'string' && isBase64(x);`);
        emit('}');
        emit(`function w${id}(x: unknown): Fault | undefined {`);
        emit(`  if (typeof x !== 'string') return typeFault(x, n${id}, 'string');`);
        emit(`  return isBase64(x) ? undefined : customFault(c${id}, n${id}, x);`);
        emit('}');
        return;
      case 'assert-object':
        emit(`function o${id}(x: unknown): boolean {`);
        emit(`  return x !== null && (typeof x === 'object' || typeof x === 'function');`);
        emit('}');
        emit(`function w${id}(x: unknown): Fault | undefined {`);
        emit(`  return o${id}(x) ? undefined : customFault(n${id}, n${id}, x);`);
        emit('}');
        return;
      case 'optional':
      case 'default':
        emit(`function o${id}(x: unknown): boolean {`);
        emit(`  return x === undefined || ${okExpr(entry.inner, 'x')};`);
        emit('}');
        emit(`function w${id}(x: unknown): Fault | undefined {`);
        emit(`  return x === undefined ? undefined : w${entry.inner}(x);`);
        emit('}');
        return;
      case 'nullable':
        emit(`function o${id}(x: unknown): boolean {`);
        emit(`  return x === null || ${okExpr(entry.inner, 'x')};`);
        emit('}');
        emit(`function w${id}(x: unknown): Fault | undefined {`);
        emit(`  return x === null ? undefined : w${entry.inner}(x);`);
        emit('}');
        return;
      case 'record': {
        const trivial = nodes[entry.value].kind === 'unknown';
        emit(`function o${id}(x: unknown): boolean {`);
        // A judged value is one JSON.parse made (judge-kit.ts, "What is judged"): its objects have no
        // symbol keys, and zod's isPlainObject holds for all of them or for none (plainObjects).
        emit(`  if (typeof x !== 'object' || x === null || Array.isArray(x) || !plainObjects()) return false;`);
        if (!trivial) {
          emit('  const o = x as Rec;');
          emit('  for (const k in o) {');
          emit(`    if (k === '__proto__' || !Object.hasOwn(o, k)) continue;`);
          emit('    const v = o[k];');
          emit(`    if (!${okExpr(entry.value, 'v')}) return false;`);
          emit('  }');
        }
        emit('  return true;');
        emit('}');
        emit(`function w${id}(x: unknown): Fault | undefined {`);
        emit(`  return recordWhy(x, n${id}, w${entry.value});`);
        emit('}');
        entry.trivial = trivial;
        return;
      }
      case 'object':
        emitObject(id);
        return;
      case 'array':
        entry.cap = emitArray(id);
        return;
      case 'union':
        emitUnion(id);
        return;
    }
    throw new Error(`gen-judges: no code for kind ${entry.kind}`);
  }

  for (const line of spec.header) emit(`// ${line}`);
  emit('');
  emit(`import * as sdk from '${spec.source}';`);
  emit(`import { isBase64 } from '${spec.kit}/base64.js';`);
  emit('import {');
  emit('  at,');
  emit('  capFault,');
  emit('  customFault,');
  emit('  type Fault,');
  emit('  fault,');
  emit('  plainObjects,');
  emit('  merge,');
  emit('  nonoptional,');
  emit('  pickUnion,');
  emit('  prefix,');
  emit('  RULED_OUT,');
  emit('  type Rec,');
  emit('  recordWhy,');
  emit('  root,');
  emit('  SchemaDrift,');
  emit('  typeFault,');
  emit('  unrecognized,');
  emit('  type ZodNode,');
  emit('  zodOk,');
  emit('  zodWhy,');
  emit(`} from '${spec.kit}/judge-kit.js';`);
  emit(`import type { JudgeNode } from '${spec.kit}/judge-node.js';`);
  emit('');
  emit('// The nodes, each by its hop from the node that first reached it, checked at load: an SDK');
  emit('// whose schemas are not the ones seen at build time leaves DRIFT set, and no judge here is used.');
  const rootExpr = (entry) => entry.member;
  const lets = [];
  const assigns = [];
  for (const [id, entry] of nodes.entries()) {
    const sig = JSON.stringify(signature(entry.node));
    lets.push(`n${id}`);
    if (entry.from === null) assigns.push(`n${id} = root(${rootExpr(entry)} as unknown as ZodNode, ${sig});`);
    else assigns.push(`n${id} = at(n${entry.from}, ${JSON.stringify(entry.member)}, ${JSON.stringify(entry.sub)}, ${sig});`);
  }
  for (const [id, entry] of nodes.entries()) {
    if (entry.kind !== 'base64') continue;
    lets.push(`c${id}`);
    assigns.push(`c${id} = at(n${id}, 'checks', 0, ${JSON.stringify(signature(entry.node._zod.def.checks[0]))});`);
  }
  for (const [id, entry] of nodes.entries()) {
    if (entry.kind === 'object' && entry.strict)
      emit(`const K${id}: ReadonlySet<string> = new Set(${JSON.stringify(entry.keys.map((k) => k.key))});`);
  }
  const body = [];
  {
    const saved = out.splice(0);
    for (const id of nodes.keys()) {
      emitNode(id);
      emit('');
    }
    body.push(...out.splice(0));
    out.push(...saved);
  }
  const patternLets = [];
  for (const [k, { node, k: index }] of patterns.entries()) {
    if (!(index === 0 && node._zod.traits.has('$ZodCheck'))) throw new Error('gen-judges: a pattern on a check other than the node itself');
    patternLets.push(`P${k}`);
    assigns.push(`P${k} = (n${ids.get(node)}._zod.def as { pattern: RegExp }).pattern;`);
  }
  for (const name of lets) emit(`let ${name}!: ZodNode;`);
  for (const name of patternLets) emit(`let ${name}!: RegExp;`);
  emit('');
  emit('/** Why the judges here are not to be used: the SDK at run time is not the one they were generated from. */');
  emit('export const DRIFT: SchemaDrift | undefined = (() => {');
  emit('  try {');
  for (const a of assigns) emit(`    ${a}`);
  emit('    return undefined;');
  emit('  } catch (error) {');
  emit('    if (error instanceof SchemaDrift) return error;');
  emit('    throw error;');
  emit('  }');
  emit('})();');
  emit('');
  out.push(...body);

  emit('/** Every node, for the byte judge (judge-bytes.ts): its kind, its functions, what it holds. */');
  emit('export const NODES: readonly JudgeNode[] = [');
  for (const [id, entry] of nodes.entries()) {
    const common = `ok: o${id}, why: w${id}, zod: n${id}`;
    switch (entry.kind) {
      case 'object': {
        const keys = entry.keys.map(({ key, child }) => {
          const z = nodes[child].node._zod;
          const mode = z.optin !== undefined && z.optout === 'optional' ? 'A' : z.optin === undefined ? 'B' : 'C';
          return `{ name: ${JSON.stringify(key)}, child: ${child}, mode: '${mode}' }`;
        });
        emit(`  { kind: 'object', ${common}, keys: [${keys.join(', ')}], strict: ${entry.strict} },`);
        break;
      }
      case 'array':
        emit(`  { kind: 'array', ${common}, element: ${entry.element}, cap: ${entry.cap ?? 'Infinity'} },`);
        break;
      case 'union':
        emit(`  { kind: 'union', ${common}, options: [${entry.options.join(', ')}] },`);
        break;
      case 'optional':
      case 'default':
      case 'nullable':
        emit(`  { kind: '${entry.kind}', ${common}, inner: ${entry.inner} },`);
        break;
      case 'record':
        emit(`  { kind: 'record', ${common}, value: ${entry.value}, trivial: ${entry.trivial} },`);
        break;
      case 'leaf':
        // The test itself, for encode's plans (judge-plan.ts): leaves with one test are judged alike.
        emit(`  { kind: 'leaf', ${common}, test: ${JSON.stringify(leafTestOnX(entry.node))} },`);
        break;
      default:
        emit(`  { kind: '${entry.kind}', ${common} },`);
    }
  }
  emit('];');
  emit('');
  emit('/** Each root schema, by its export name, and the node that judges it. */');
  emit('export const ROOTS: ReadonlyArray<readonly [string, object, number]> = [');
  for (const r of roots) emit(`  [${JSON.stringify(r.name)}, ${r.expr}, ${r.id}],`);
  emit('];');
  /** @type {Record<string, number>} */
  const counts = {};
  for (const n of nodes) counts[n.kind] = (counts[n.kind] ?? 0) + 1;
  return { code: `${out.join('\n')}\n`, nodes: nodes.length, counts };
}

// ---------------------------------------------------------------------------
// Run as a script: the SDK's schemas, into src/contract/generated/judges.ts.

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const versions = {
    sdk: JSON.parse(readFileSync(join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')).version,
    zod: JSON.parse(readFileSync(join(ROOT, 'node_modules', 'zod', 'package.json'), 'utf8')).version,
  };
  const exported = /** @type {Record<string, unknown>} */ ({ ...sdk });
  const { code, nodes, counts } = generate({
    roots: [...ROOTS.map((name) => ({ name, node: exported[name], expr: `sdk.${name}` })), ERROR_ROOT],
    source: '@modelcontextprotocol/sdk/types.js',
    kit: '..',
    header: [
      'Generated by scripts/gen-judges.mjs from the SDK schemas installed at build time: do not edit.',
      `@modelcontextprotocol/sdk ${versions.sdk}, zod ${versions.zod}. The generator says what each function does.`,
    ],
  });
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, code);
  process.stdout.write(
    `gen-judges: ${nodes} nodes from ${ROOTS.length + 1} roots (${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}) -> ${OUT.slice(ROOT.length + 1)}\n`,
  );
}
