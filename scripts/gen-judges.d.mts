// The generator's one export, for the tests that run it on schemas of their own (test/generator.test.ts).

export interface GenerateSpec {
  /** Each root: its name, the zod schema, and the expression that reaches it from `import * as sdk from source`. */
  roots: { name: string; node: unknown; expr: string }[];
  /** The module the roots are imported from, as the output imports it. */
  source: string;
  /** Where the output finds base64.js, judge-kit.js and judge-node.js. */
  kit: string;
  /** Comment lines at the top of the output. */
  header: string[];
}

export function generate(spec: GenerateSpec): { code: string; nodes: number; counts: Record<string, number> };
