// Whether a JSON number literal is finite as an IEEE double (rule 4.1).
// Halfway between the largest double and 2^1024 lies T = 2^1024 - 2^970,
// and the tie rounds up to Infinity: a literal is refused when |x| >= T.
// With x = 0.d1d2... * 10^E, d1 != 0: finite for E < 309, not for E > 309,
// and at 309 by T's digits. assembly/number.ts does the same;
// test/finite.test.ts checks both against Number().

/** T's 309 decimal digits (computed as (2n ** 1024n - 2n ** 970n).toString()). */
export const OVERFLOW_DIGITS =
  '179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792';

const T = new Uint8Array(OVERFLOW_DIGITS.length);
for (let k = 0; k < T.length; k++) T[k] = OVERFLOW_DIGITS.charCodeAt(k);

const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Exponent digits past this saturate: any larger exponent decides alone. */
const EXPONENT_CAP = 1e9;

/** Whether the literal in b[start, end), in JSON's number grammar, is finite. */
export function isFiniteLiteral(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  if (b[i] === 0x2d) i++; // '-'
  const digitsStart = i;
  let digitsEnd = i; // the integer and fraction digits, the '.' among them
  while (digitsEnd < end && ((b[digitsEnd] >= ZERO && b[digitsEnd] <= NINE) || b[digitsEnd] === DOT)) digitsEnd++;

  let intDigits = 0;
  while (digitsStart + intDigits < digitsEnd && b[digitsStart + intDigits] !== DOT) intDigits++;
  if (digitsEnd === end && intDigits < 309) return true;

  let exponent = 0;
  if (digitsEnd < end) {
    let j = digitsEnd + 1; // past 'e' or 'E'
    let negative = false;
    if (b[j] === 0x2b) j++;
    else if (b[j] === 0x2d) {
      negative = true;
      j++;
    }
    for (; j < end; j++) {
      if (exponent < EXPONENT_CAP) exponent = exponent * 10 + (b[j] - ZERO);
    }
    if (negative) exponent = -exponent;
  }

  // Find the first significant digit and E, so that x = 0.d1d2... * 10^E.
  const intEnd = digitsStart + intDigits;
  let first = digitsStart;
  let e: number;
  while (first < intEnd && b[first] === ZERO) first++;
  if (first < intEnd) {
    e = intEnd - first;
  } else {
    first = intEnd + 1; // past the '.', if any
    while (first < digitsEnd && b[first] === ZERO) first++;
    if (first >= digitsEnd) return true; // the value is zero
    e = -(first - intEnd - 1);
  }

  const e10 = e + exponent;
  if (e10 < 309) return true;
  if (e10 > 309) return false;
  let k = 0;
  for (let p = first; p < digitsEnd; p++) {
    const d = b[p];
    if (d === DOT) continue;
    const t = k < T.length ? T[k] : ZERO;
    if (d < t) return true;
    if (d > t) return false;
    k++;
  }
  // Our digits ran out while equal so far: below T if T still has a non-zero digit.
  for (; k < T.length; k++) if (T[k] !== ZERO) return true;
  return false;
}
