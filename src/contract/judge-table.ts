// A plan (judge-plan.ts) lowered to the table the core walks (assembly/plan.ts
// says what each word is). The core proves acceptance only: a plan it cannot
// follow whole is lowered to BAIL where it cannot, and the frames that reach
// one are judged by acceptsBytes (judge-bytes.ts), as before.

import { plainObjects } from './judge-kit.js';
import { ANY, ARRAY, BASE64, CONTAINER, OBJECT, type Plan, RECORD, STRING, UNION, VALUE } from './judge-plan.js';

const K_ANY = 0;
const K_OBJECT = 1;
const K_ARRAY = 2;
const K_OPTIONS = 3;
const K_RECORD = 4;
const K_CONTAINER = 5;
const K_BAIL = 6;
const K_STRING = 7;
const K_BASE64 = 8;
const K_ENUM = 9;
const K_NUMBER = 10;
const K_BOOLEAN = 11;
const NULL_OK = 0x100;
/** An OBJECT's slot two member names share. */
const COLLIDED = 255;

const INTEGER = 1;
const LOW = 2;
const LOW_OPEN = 4;
const HIGH = 8;
const HIGH_OPEN = 16;

/** A number leaf's test as the generator writes it (scripts/gen-judges.mjs): finite, then a safe integer, then its bounds. */
const NUMBER_TEST =
  /^typeof x === 'number' && Number\.isFinite\(x\)( && Number\.isSafeInteger\(x\))?(?: && x (>=|>) (-?\d+(?:\.\d+)?))?(?: && x (<=|<) (-?\d+(?:\.\d+)?))?$/;

/** A NUMBER node's words (flags, then the bounds as two f64), or undefined for a test it does not carry. */
function numberWords(test: string | undefined): number[] | undefined {
  const m = test === undefined ? null : NUMBER_TEST.exec(test);
  if (m === null) return undefined;
  let flags = m[1] ? INTEGER : 0;
  if (m[2]) flags |= LOW | (m[2] === '>' ? LOW_OPEN : 0);
  if (m[4]) flags |= HIGH | (m[4] === '<' ? HIGH_OPEN : 0);
  const bounds = new Float64Array([m[3] ? Number(m[3]) : 0, m[5] ? Number(m[5]) : 0]);
  return [flags, ...new Int32Array(bounds.buffer)];
}

/** The table of `plan`, its root at offset 0: words, then the names' and strings' bytes. */
export function lowerPlan(plan: Plan): Int32Array {
  const words: number[] = [];
  const strings: Uint8Array[] = [];
  const at = new Map<Plan, number>();
  // Offsets of strings are fixed once the words are all written: kept as indexes until then.
  const stringSlots: number[] = [];

  const addString = (bytes: Uint8Array, slot: number) => {
    stringSlots.push(slot);
    words[slot] = strings.length;
    strings.push(bytes);
    words[slot + 1] = bytes.length;
  };

  const emit = (p: Plan): number => {
    const known = at.get(p);
    if (known !== undefined) return known;
    const node = words.length;
    at.set(p, node * 4);
    const head = (kind: number) => kind | (p.nullOk ? NULL_OK : 0);
    switch (p.kind) {
      case ANY:
        words.push(K_ANY);
        break;
      case STRING:
        words.push(head(K_STRING));
        break;
      case BASE64:
        words.push(head(K_BASE64));
        break;
      case CONTAINER:
        words.push(head(K_CONTAINER));
        break;
      case OBJECT: {
        const n = p.members.length;
        const firsts = p.bytes.map((name) => (name.length === 0 ? 0x22 : name[0]));
        const slotOf = (k: number, shift: number) => (firsts[k] ^ (p.bytes[k].length << shift)) & 31;
        // The shift that gives the fewest names a shared slot.
        let best = 0;
        let fewest = Number.POSITIVE_INFINITY;
        for (let shift = 0; shift < 8; shift++) {
          const used = new Set<number>();
          let shared = 0;
          for (let k = 0; k < n; k++) {
            const slot = slotOf(k, shift);
            if (used.has(slot)) shared++;
            used.add(slot);
          }
          if (shared < fewest) {
            fewest = shared;
            best = shift;
          }
        }
        const table = new Uint8Array(32);
        for (let k = 0; k < n; k++) {
          const slot = slotOf(k, best);
          table[slot] = table[slot] === 0 ? k + 1 : COLLIDED;
        }
        words.push(head(K_OBJECT), p.required, p.asked, p.strict ? 1 : 0, n, best, ...new Int32Array(table.buffer));
        const slots = words.length;
        for (let k = 0; k < 4 * n; k++) words.push(0);
        for (let k = 0; k < n; k++) {
          const name = p.bytes[k];
          words[slots + 4 * k] = emit(p.members[k]);
          addString(name, slots + 4 * k + 1);
          // A name with a quote or a backslash is spelled with an escape in any text: no walk of the core matches it.
          words[slots + 4 * k + 3] = name.includes(0x22) || name.includes(0x5c) ? -1 : (name.length << 8) | firsts[k];
        }
        break;
      }
      case ARRAY:
        words.push(head(K_ARRAY), 0, p.cap === Number.POSITIVE_INFINITY || p.cap > 0x7fffffff ? -1 : p.cap);
        words[node + 1] = emit(p.element!);
        break;
      case RECORD:
        // Without plain objects zod refuses every record (acceptsBytes likewise).
        if (!plainObjects()) {
          words.push(head(K_BAIL));
          break;
        }
        words.push(head(K_RECORD), 0);
        words[node + 1] = emit(p.element!);
        break;
      default:
        if (p.kind === UNION || (p.kind === VALUE && p.options.length !== 0)) {
          const n = p.options.length;
          words.push(head(K_OPTIONS), n);
          for (let k = 0; k < n; k++) words.push(0);
          for (let k = 0; k < n; k++) words[node + 2 + k] = emit(p.options[k]);
        } else if (p.kind === VALUE && p.leaf && p.values.length !== 0) {
          const n = p.values.length;
          words.push(head(K_ENUM), n);
          for (let k = 0; k < 2 * n; k++) words.push(0);
          for (let k = 0; k < n; k++) addString(p.values[k], node + 2 + 2 * k);
        } else if (p.kind === VALUE && p.leaf && p.test === "typeof x === 'boolean'") words.push(head(K_BOOLEAN));
        else {
          const number = p.kind === VALUE && p.leaf ? numberWords(p.test) : undefined;
          words.push(...(number ? [head(K_NUMBER), ...number] : [head(K_BAIL)]));
        }
    }
    return node * 4;
  };
  emit(plan);

  // Each string on a boundary of eight, padded with zeros to the next: the core compares eight bytes a turn.
  const offsets: number[] = [];
  let bytesAt = (words.length * 4 + 7) & ~7;
  for (const s of strings) {
    offsets.push(bytesAt);
    bytesAt += (s.length + 8) & ~7;
  }
  for (const slot of stringSlots) words[slot] = offsets[words[slot]];
  const table = new Int32Array((bytesAt + 3) >> 2);
  table.set(words);
  const bytes = new Uint8Array(table.buffer);
  for (let k = 0; k < strings.length; k++) bytes.set(strings[k], offsets[k]);
  return table;
}
