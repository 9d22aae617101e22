// Well-formed UTF-8, one sequence at a time (rule 4.1).
//
// Unicode 15, table 3-7: no overlong forms, no surrogates (ED A0..BF), nothing
// above U+10FFFF, no sequence cut short. src/contract/json-text.ts has the
// same function for the JS path.

/** The length of the well-formed sequence whose non-ASCII lead byte is at p, or 0. */
export function utf8Length(p: usize, end: usize): usize {
  const c = <u32>load<u8>(p);
  let n: usize;
  let lo: u32 = 0x80;
  let hi: u32 = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    else if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    else if (c == 0xf4) hi = 0x8f;
  } else return 0;
  if (p + n > end) return 0;
  const second = <u32>load<u8>(p + 1);
  if (second < lo || second > hi) return 0;
  for (let k: usize = 2; k < n; k++) {
    const x = <u32>load<u8>(p + k);
    if (x < 0x80 || x > 0xbf) return 0;
  }
  return n;
}
