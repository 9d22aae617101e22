// What an SDK schema node is, as far as a compiled judge depends on it:
// recorded by the build (scripts/gen-judges.mjs, which compiles this file
// itself, so it imports nothing) and compared at load (judge-kit.ts). A
// refinement (`atob`, `z.custom`) is known by its verdicts on probes where
// base64 and object tests part, not its source, which bundlers reprint.

/** The parts of a zod node (zod 4's `_zod`) that a signature reads. */
export interface SignedNode {
  _zod: { def: Record<string, unknown>; traits: Set<string>; optin?: string; optout?: string };
}

const PROBES: readonly unknown[] = [
  '',
  'QQ==',
  'QQ=',
  'QQ',
  'Q',
  'QUJD',
  'QUJ=',
  'Q===',
  'QQ==QQ==',
  'AAAA=',
  ' QU JD\n',
  'QQ= =',
  '-_-_',
  '+/+/',
  'QQ==\f',
  '\u00e9',
  '@',
  'null',
  null,
  0,
  true,
  {},
  [],
  () => 0,
];

/** A refinement's verdicts on the probes, one character each: 1 accepted, 0 refused, x threw. */
export function probeVerdicts(fn: (value: unknown) => unknown): string {
  return PROBES.map((probe) => {
    try {
      return fn(probe) ? '1' : '0';
    } catch {
      return 'x';
    }
  }).join('');
}

const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** A node's type, zod classes, optionality, keys, literal and enum values, union shape, and each check's parameters. */
export function signature(node: SignedNode): string {
  const z = node._zod;
  // biome-ignore lint/suspicious/noExplicitAny: zod's defs differ by type; each member is read where its type has it.
  const d = z.def as Record<string, any>;
  const parts: string[] = [d.type, [...z.traits].filter((t) => t.startsWith('$')).join('+'), String(z.optin), String(z.optout)];
  if (d.type === 'object') parts.push(Object.keys(d.shape).join(','), d.catchall ? d.catchall._zod.def.type : '-');
  if (d.type === 'literal') parts.push(d.values.map(show).join(','));
  // All an enum's entries: zod's value list drops a TypeScript enum's reverse keys.
  if (d.type === 'enum')
    parts.push(
      Object.entries(d.entries)
        .map(([k, v]) => `${k}=${show(v)}`)
        .join(','),
    );
  if (d.type === 'union') parts.push(String(d.options.length), String(d.inclusive), String(d.discriminator));
  if (d.coerce) parts.push('coerce');
  const checks = z.traits.has('$ZodCheck') ? [node, ...(d.checks ?? [])] : (d.checks ?? []);
  for (const c of checks as SignedNode[]) {
    // biome-ignore lint/suspicious/noExplicitAny: as above, for a check's def.
    const cd = c._zod.def as Record<string, any>;
    parts.push(
      [
        cd.check,
        cd.format,
        cd.value,
        cd.maximum,
        cd.minimum,
        cd.inclusive,
        cd.abort,
        cd.when ? 'when' : '',
        cd.pattern,
        cd.fn ? probeVerdicts(cd.fn) : '',
      ]
        .map((v) => (v === undefined ? '' : show(v)))
        .join(':'),
    );
  }
  return parts.join('|');
}
