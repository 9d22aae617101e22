// The architecture check: `depcruise src assembly` in `npm run check`.
//
// src/ is built in layers, one folder each, from the bytes up. A module may
// import from its own folder and from the folders below it, never from one
// above: the list below is that order. Type-only imports count too (they
// are how a circle hides). See src/index.ts for what each layer holds.
// assembly/, the core, is held to the same: no circle, no orphan but its
// entry, and nothing imported from outside it.
//
// dependency-cruiser is pinned at 17.4.3: its 18.x line runs only on Node 22
// and later, and the project still builds and tests on Node 20.

/** The layers, lowest first. connection is the TCP server core that relay and proxy share; proxy serves a real MCP server's answers as records; client is their other end; index is the library's export list; runtime, cli and demo stand on it. */
const LAYERS = [
  'wire',
  'contract',
  'records',
  'backend',
  'frame',
  'exchange',
  'streams',
  'connection',
  'relay',
  'proxy',
  'index',
  'runtime',
  'cli',
  'demo',
];

/** The path pattern of a layer: a folder, or for `index`, the one file. */
const pathOf = (layer) => (layer === 'index' ? '^src/index\\.ts$' : `^src/${layer}/`);

/** For each layer, a rule forbidding imports from any layer above it. */
const upward = LAYERS.slice(0, -1).map((layer, k) => ({
  name: `no-upward-from-${layer}`,
  comment: `${layer} is below ${LAYERS.slice(k + 1).join(', ')}: it may not import from them (layers point down only).`,
  severity: 'error',
  from: { path: pathOf(layer) },
  to: {
    path: LAYERS.slice(k + 1)
      .map(pathOf)
      .join('|'),
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle makes two modules one in all but name: neither can be read, tested or moved without the other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'no-outside-src',
      comment: 'The library is what is in src/ (and node_modules): it never reaches into tests, benchmarks or scripts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts|assembly)/' },
    },
    {
      name: 'no-unresolvable',
      comment:
        "An import that does not resolve is a typo or a missing dependency. Except the Workers runtime's own modules (cloudflare:sockets), which only workerd has.",
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^cloudflare:' },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports is dead code, unless it is an entry (runtime/, cli/main, demo/main) or a declaration.',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: [
          '^src/runtime/',
          '^src/cli/main\\.ts$',
          '^src/demo/main\\.ts$',
          '^src/demo/tee\\.ts$',
          '^src/demo/stdio-server\\.ts$',
          '^assembly/index\\.ts$',
          '\\.d\\.ts$',
        ],
      },
      to: {},
    },
    {
      name: 'core-stands-alone',
      comment: 'The core (assembly/) compiles to WebAssembly on its own: it imports nothing but its own files.',
      severity: 'error',
      from: { path: '^assembly/' },
      to: { pathNot: '^assembly/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
