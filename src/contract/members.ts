// A JSON object's small top-level members, read as its bytes stream past: in constant memory, whatever the object's size.
//
// # What it is for
//
// The proxy reads the `id` of a server message too long to hold (it drops
// the rest), and the relay reads the `channel` and `method` of each request
// line it forwards (it holds none of them). Both need a few short members
// of the top-level object, wherever they stand in it, before or after
// members of any size. So the scanner follows the structure only (strings,
// escapes, nesting), keeps the raw text of the named members' values up to
// MAX_VALUE_BYTES, and nothing else. It checks nothing: a text that is not
// JSON gives values that do not parse, or none.
//
// The last of duplicate names wins, as in JSON.parse.

// Declared here, not imported: on Node 20 a hot loop reads a module's own const faster than an imported one
// (a byte loop over 1 MiB: 1.09 against 1.46 ns a byte).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** The most bytes of a value the scanner keeps: ids, channels and method names are short. */
const MAX_VALUE_BYTES = 64;
/** The most bytes of a member name the scanner keeps: enough for the names it looks for, escaped or not. */
const MAX_NAME_BYTES = 32;

const decoder = new TextDecoder();

export class MemberScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1, whether the next string is a member name (else a value). */
  private expectName = true;
  private naming = false;
  private name: number[] = [];
  /** The member whose value is being kept, if it is one of the names. */
  private capturing: string | null = null;
  private captured: number[] = [];
  private readonly texts = new Map<string, string>();

  constructor(private readonly names: readonly string[]) {}

  /** Forgets everything read: the next byte begins a new object. */
  reset(): void {
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.expectName = true;
    this.naming = false;
    this.name = [];
    this.capturing = null;
    this.captured = [];
    this.texts.clear();
  }

  /** Reads the next bytes of the object: b[start, end). */
  push(b: Uint8Array, start = 0, end = b.length): void {
    for (let i = start; i < end; i++) this.step(b[i]);
  }

  private step(c: number): void {
    if (this.inString) {
      this.inString = !(c === QUOTE && !this.escaped);
      this.escaped = !this.escaped && c === BACKSLASH;
      if (this.naming) {
        if (this.inString && this.name.length <= MAX_NAME_BYTES) this.name.push(c);
        else if (!this.inString) this.named();
      } else if (this.capturing !== null) this.capture(c);
      return;
    }
    if (this.capturing !== null && this.depth === 1 && (c === COMMA || c === CLOSE_OBJECT)) this.captureEnd();
    if (c === QUOTE) {
      this.inString = true;
      this.naming = this.depth === 1 && this.expectName;
      this.name = [];
      if (this.capturing !== null) this.capture(c);
      return;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.depth--;
    else if (c === COMMA && this.depth === 1) this.expectName = true;
    if (this.capturing !== null && c !== SPACE && c !== TAB && c !== LF && c !== CR) this.capture(c);
  }

  /** A member name at depth 1 has closed: its value follows, kept when the name is one looked for. */
  private named(): void {
    this.naming = false;
    this.expectName = false;
    this.captured = [];
    this.capturing = null;
    if (this.name.length > MAX_NAME_BYTES) return;
    let text: unknown;
    try {
      text = JSON.parse(`"${String.fromCharCode(...this.name)}"`);
    } catch {
      return;
    }
    if (typeof text === 'string' && this.names.includes(text)) this.capturing = text;
  }

  private capture(c: number): void {
    if (this.captured.length > MAX_VALUE_BYTES) {
      // Too long to be what is looked for: it is no value of ours.
      this.texts.delete(this.capturing!);
      this.capturing = null;
      return;
    }
    // The ':' before the value is not part of it.
    if (this.captured.length === 0 && c === COLON) return;
    this.captured.push(c);
  }

  private captureEnd(): void {
    this.texts.set(this.capturing!, decoder.decode(Uint8Array.from(this.captured)));
    this.capturing = null;
  }

  /** The value of member `name` read so far (when the object has ended, its last), parsed; undefined when there was none that parses. */
  value(name: string): unknown {
    if (this.capturing === name) this.captureEnd();
    const text = this.texts.get(name);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
}
