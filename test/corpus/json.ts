// Strict JSON text (WIRE.md rule 4.1): what the body scanner accepts and refuses, case by case.
//
// Written for this project, not taken from any other suite. Each case is
// one text, given as a JS string (checked as its UTF-8 bytes) or as raw
// bytes, and what rule 4.1 says of it:
//
//   y_  RFC 8259 requires it to be accepted, and rule 4.1 accepts it.
//   n_  RFC 8259 (grammar, or "MUST be UTF-8", section 8.1) refuses it.
//   i_  RFC 8259 leaves it to the implementation (sections 4, 6, 8.1, 8.2,
//       9); `why` says what rule 4.1 decides, and why.
//
// For refusals, `status` and `offset` follow the conventions written in
// assembly/status.ts, with offsets into the text (the JSON text alone; a
// frame's tag byte would add one):
//
//   syntax error        the offending byte
//   end of text         the text's length
//   UTF-8               the sequence's lead byte
//   bad escape          the backslash
//   lone surrogate      the backslash of the unpaired escape
//   number range        the literal's first byte ('-' included)
//   depth               the 128th opening bracket
//   trailing            the first non-whitespace byte after the value
//   byte-order mark     its first byte
//
// Raw bytes are written with `b(...)`, which joins ASCII strings and byte
// lists, so that the offsets can be counted by eye.

import { Status } from '../../src/wire/status.js';

export interface JsonCase {
  name: string;
  text: string | number[];
  expect: 'accept' | 'refuse';
  status?: Status;
  offset?: number;
  why?: string;
}

const r = String.raw;

/** Joins strings (as UTF-8) and byte lists into one byte list. */
function b(...parts: (string | number[])[]): number[] {
  const out: number[] = [];
  for (const p of parts) out.push(...(typeof p === 'string' ? new TextEncoder().encode(p) : p));
  return out;
}

const y = (name: string, text: string | number[]): JsonCase => ({ name: `y_${name}`, text, expect: 'accept' });

const n = (name: string, text: string | number[], status?: Status, offset?: number): JsonCase => {
  const c: JsonCase = { name: `n_${name}`, text, expect: 'refuse' };
  if (status !== undefined) c.status = status;
  if (offset !== undefined) c.offset = offset;
  return c;
};

const iAccept = (name: string, text: string | number[], why: string): JsonCase => ({ name: `i_${name}`, text, expect: 'accept', why });

const iRefuse = (name: string, text: string | number[], why: string, status?: Status, offset?: number): JsonCase => {
  const c: JsonCase = { name: `i_${name}`, text, expect: 'refuse', why };
  if (status !== undefined) c.status = status;
  if (offset !== undefined) c.offset = offset;
  return c;
};

const S = Status;

// ---------------------------------------------------------------------------
// Numbers near the edge of the double range.
//
// T = 2^1024 - 2^970 is the least value that rounds to Infinity
// (src/contract/finite.ts); M = 2^1024 - 2^971 is the largest double.

const T = 2n ** 1024n - 2n ** 970n;
const M = 2n ** 1024n - 2n ** 971n;
const T_DIGITS = T.toString(); // 309 digits
const WHY_RANGE_OK =
  'RFC 8259 section 6 lets an implementation limit the range of numbers; rule 4.1 accepts every literal that is finite as an IEEE double';
const WHY_RANGE_BAD =
  'RFC 8259 section 6 lets an implementation limit the range; rule 4.1 refuses a literal that rounds to +-Infinity as a double, which a JS peer would silently alter';
const WHY_UNDERFLOW =
  'rule 4.1 refuses only non-finite numbers; a literal that underflows rounds to (signed) zero, which is finite, so it is accepted';

// ---------------------------------------------------------------------------
// Nesting.

const WHY_DEPTH_OK =
  'RFC 8259 section 9 lets an implementation limit nesting; rule 4.1 allows 127 levels, counting the outermost, as serde_json does';
const WHY_DEPTH_BAD = 'RFC 8259 section 9 lets an implementation limit nesting; rule 4.1 refuses a 128th level, at its opening bracket';

/** `depth` containers from `openers`, cycled, each holding the next; the 128th opener's offset if there is one. */
function nest(depth: number, openers: readonly ('[' | '{')[], sep = ''): { text: string; at128: number } {
  let open = '';
  let close = '';
  let at128 = -1;
  for (let k = 0; k < depth; k++) {
    const o = openers[k % openers.length];
    if (k === 127) at128 = open.length;
    open += o === '[' ? `[${sep}` : `{"k":${sep}`;
    close = (o === '[' ? `${sep}]` : `${sep}}`) + close;
  }
  return { text: `${open}0${close}`, at128 };
}

const arrays127 = nest(127, ['[']);
const arrays128 = nest(128, ['[']);
const objects127 = nest(127, ['{']);
const objects128 = nest(128, ['{']);
const mixed127 = nest(127, ['[', '{', '{', '[', '[']);
const mixed128 = nest(128, ['{', '[', '[', '{', '[']);
const spaced128 = nest(128, ['[', '{'], ' \n');

// ---------------------------------------------------------------------------

export const JSON_CASES: JsonCase[] = [
  // Objects.
  y('object_empty', '{}'),
  y('object_empty_with_whitespace', '{ \t\r\n}'),
  y('object_one_member', '{"a":1}'),
  y('object_every_kind_of_value', '{"a":1,"b":"x","c":null,"d":true,"e":false,"f":[],"g":{},"h":-0.5e-3}'),
  y('object_whitespace_everywhere', ' { "a" : 1 , "b" :\n[ 2 ]\t} '),
  y('object_empty_key', '{"":0}'),
  y('object_escaped_key', r`{"\u0041\n\"":1}`),
  y('object_nested', '{"a":{"b":{"c":{}}}}'),
  y('object_in_array_in_object', '{"a":[{"b":[]},{}]}'),
  y('object_mcp_body', '{"resources":[{"uri":"file:///a.txt","name":"a","mimeType":"text/plain"}],"nextCursor":"c1","_meta":{"k":[1,2]}}'),

  // Arrays.
  y('array_empty', '[]'),
  y('array_empty_with_whitespace', '[ \n\t\r ]'),
  y('array_one_value', '[1]'),
  y('array_every_kind_of_value', '[1,"a",null,true,false,{},[],-2.5E+3]'),
  y('array_nested', '[[[]]]'),
  y('array_of_empty_containers', '[{},[],{},[]]'),
  y('array_whitespace_around_commas', '[ 1 ,\t2\n,\r3 ]'),

  // Top-level values other than objects and arrays (RFC 8259 section 2).
  y('top_number', '1'),
  y('top_negative_number', '-1'),
  y('top_string', '"a"'),
  y('top_true', 'true'),
  y('top_false', 'false'),
  y('top_null', 'null'),

  // Whitespace: the four kinds, before and after the value and inside.
  y('whitespace_space', ' 1 '),
  y('whitespace_tab', '\t1\t'),
  y('whitespace_line_feed', '\n1\n'),
  y('whitespace_carriage_return', '\r1\r'),
  y('whitespace_all_kinds_everywhere', ' \t\r\n[ \t\r\n1 \t\r\n, \t\r\n{ \t\r\n"a" \t\r\n: \t\r\n2 \t\r\n} \t\r\n] \t\r\n'),

  // Strings and escapes.
  y('string_empty', '""'),
  y(
    'string_printable_ascii',
    `"${Array.from({ length: 0x7f - 0x20 }, (_, k) => String.fromCharCode(0x20 + k))
      .filter((c) => c !== '"' && c !== '\\')
      .join('')}"`,
  ),
  y('string_raw_delete', '"\x7f"'),
  y('string_escape_quote', r`"\""`),
  y('string_escape_backslash', r`"\\"`),
  y('string_escape_slash', r`"\/"`),
  y('string_escape_b', r`"\b"`),
  y('string_escape_f', r`"\f"`),
  y('string_escape_n', r`"\n"`),
  y('string_escape_r', r`"\r"`),
  y('string_escape_t', r`"\t"`),
  y('string_all_short_escapes', r`"\"\\\/\b\f\n\r\t"`),
  y('string_u_escape_lower_hex', r`"\u00e9\uabcd"`),
  y('string_u_escape_upper_hex', r`"\u00E9\uABCD"`),
  y('string_u_escape_mixed_case_hex', r`"\uAbCd\uaBcD"`),
  y('string_u_escape_every_hex_digit', r`"\u0123\u4567\u89ab\ucdef\u89AB\uCDEF"`),
  y('string_u_escape_quote_and_backslash', r`"\u0022\u005c"`),
  y('string_u_escape_control', r`"\u001f\u0001"`),
  y('string_surrogate_pair', r`"\uD83D\uDE00"`),
  y('string_surrogate_pair_lower_hex', r`"\ud83d\ude00"`),
  y('string_surrogate_pair_lowest', r`"\uD800\uDC00"`),
  y('string_surrogate_pair_highest', r`"\uDBFF\uDFFF"`),
  y('string_two_surrogate_pairs', r`"\uD83D\uDE00\uD83D\uDE01"`),
  y('string_surrogate_pair_in_key', r`{"\uD83D\uDE00":1}`),
  y('string_escape_after_pair', r`"\uD83D\uDE00\n"`),

  // Numbers.
  y('number_zero', '0'),
  y('number_negative_zero', '-0'),
  y('number_1e5', '1e5'),
  y('number_1E_plus_5', '1E+5'),
  y('number_1e_minus_5', '1e-5'),
  y('number_half', '0.5'),
  y('number_negative_zero_fraction_exponent', '-0.0e0'),
  y('number_zero_exponent', '0e0'),
  y('number_zero_E_minus', '0E-1'),
  y('number_integer', '123456789'),
  y('number_negative_integer', '-987654321'),
  y('number_fraction_exponent', '1.5e10'),
  y('number_exponent_leading_zeros', '1e007'),
  y('number_in_array_every_form', '[0,-0,1,-1,0.1,-0.1,1e1,1E1,1e+1,1e-1,1.5E-1,10,100.001]'),
  y('number_above_max_safe_integer', '9007199254740993'),
  y('number_1e308', '1e308'),
  y('number_smallest_denormal', '5e-324'),

  // UTF-8 that is valid, at the edges of each sequence length.
  y('utf8_2_byte_lowest_U+0080', b('"', [0xc2, 0x80], '"')),
  y('utf8_2_byte_highest_U+07FF', b('"', [0xdf, 0xbf], '"')),
  y('utf8_3_byte_lowest_U+0800', b('"', [0xe0, 0xa0, 0x80], '"')),
  y('utf8_3_byte_before_surrogates_U+D7FF', b('"', [0xed, 0x9f, 0xbf], '"')),
  y('utf8_3_byte_after_surrogates_U+E000', b('"', [0xee, 0x80, 0x80], '"')),
  y('utf8_3_byte_replacement_char_U+FFFD', b('"', [0xef, 0xbf, 0xbd], '"')),
  y('utf8_4_byte_lowest_U+10000', b('"', [0xf0, 0x90, 0x80, 0x80], '"')),
  y('utf8_4_byte_U+10FFFD', b('"', [0xf4, 0x8f, 0xbf, 0xbd], '"')),
  y('utf8_mixed_lengths', '"aé€😀"'),
  y('utf8_in_member_name', '{"clé":"valeur","🔑":[]}'),
  y('utf8_at_end_of_string_then_escape', '"é\\n"'),

  // Numbers the grammar refuses.
  n('number_leading_zero', '[01]', S.JsonSyntax, 2),
  n('number_leading_zero_top_level', '01', S.Trailing, 1),
  n('number_negative_leading_zero', '[-012]', S.JsonSyntax, 3),
  n('number_leading_zeros_fraction', '[00.5]', S.JsonSyntax, 2),
  n('number_plus_sign', '[+1]', S.JsonSyntax, 1),
  n('number_plus_sign_top_level', '+1', S.JsonSyntax, 0),
  n('number_dot_first', '[.5]', S.JsonSyntax, 1),
  n('number_dot_last', '[1.]', S.JsonSyntax, 3),
  n('number_dot_last_end_of_text', '1.', S.JsonEnd, 2),
  n('number_dot_then_exponent', '[1.e5]', S.JsonSyntax, 3),
  n('number_e_without_digits', '[1e]', S.JsonSyntax, 3),
  n('number_e_without_digits_end_of_text', '1e', S.JsonEnd, 2),
  n('number_e_plus_without_digits', '[1e+]', S.JsonSyntax, 4),
  n('number_E_minus_without_digits_end_of_text', '1E-', S.JsonEnd, 3),
  n('number_exponent_fraction', '[1e1.5]', S.JsonSyntax, 4),
  n('number_minus_alone', '-', S.JsonEnd, 1),
  n('number_minus_alone_in_array', '[-]', S.JsonSyntax, 2),
  n('number_minus_space', '[- 1]', S.JsonSyntax, 2),
  n('number_double_minus', '[--1]', S.JsonSyntax, 2),
  n('number_NaN', '[NaN]', S.JsonSyntax, 1),
  n('number_Infinity', '[Infinity]', S.JsonSyntax, 1),
  n('number_minus_Infinity', '[-Infinity]', S.JsonSyntax, 2),
  n('number_hex', '[0x1F]', S.JsonSyntax, 2),
  n('number_hex_top_level', '0x1', S.Trailing, 1),
  n('number_space_inside', '[1 000]', S.JsonSyntax, 3),
  n('number_comma_decimal_in_object', '{"a":1,5}', S.JsonSyntax, 7),
  n('number_fullwidth_digit', b('[', [0xef, 0xbc, 0x91], ']'), S.JsonSyntax, 1),

  // Literals.
  n('literal_capitalised', '[True]', S.JsonSyntax, 1),
  n('literal_cut', '[tru]', S.JsonSyntax, 4),
  n('literal_cut_end_of_text', 'nul', S.JsonEnd, 3),
  n('literal_misspelt', '[fasle]', S.JsonSyntax, 3),
  n('literal_too_long', '[nulll]', S.JsonSyntax, 5),
  n('literal_nil', 'nil', S.JsonSyntax, 1),
  n('literal_undefined', '[undefined]', S.JsonSyntax, 1),

  // Strings the grammar refuses.
  n('string_single_quotes', "['a']", S.JsonSyntax, 1),
  n('string_unclosed', '["abc', S.JsonEnd, 5),
  n('string_quote_alone', '"', S.JsonEnd, 1),
  n('string_raw_tab', '["a\tb"]', S.ControlChar, 3),
  n('string_raw_line_feed', '["a\nb"]', S.ControlChar, 3),
  n('string_raw_carriage_return', '["\r"]', S.ControlChar, 2),
  n('string_raw_nul', b('["', [0x00], '"]'), S.ControlChar, 2),
  n('string_raw_unit_separator', b('["', [0x1f], '"]'), S.ControlChar, 2),
  n('string_raw_control_in_key', b('{"', [0x01], '":1}'), S.ControlChar, 2),
  n('escape_x', r`["\x41"]`, S.BadEscape, 2),
  n('escape_capital_U', r`["\U0041"]`, S.BadEscape, 2),
  n('escape_single_quote', r`["\'"]`, S.BadEscape, 2),
  n('escape_a', r`["\a"]`, S.BadEscape, 2),
  n('escape_zero', r`["\0"]`, S.BadEscape, 2),
  n('escape_space', r`["\ "]`, S.BadEscape, 2),
  n('escape_raw_line_feed', '["\\\n"]', S.BadEscape, 2),
  n('escape_after_text', r`["abc\q"]`, S.BadEscape, 5),
  n('escape_in_key', r`{"\k":1}`, S.BadEscape, 2),
  n('escape_u_short', r`["\u12"]`, S.BadEscape, 2),
  n('escape_u_no_digits', r`["\u"]`, S.BadEscape, 2),
  n('escape_u_bad_hex_digit', r`["\u00G0"]`, S.BadEscape, 2),
  n('escape_u_cut_end_of_text', r`"\u12`, S.JsonEnd, 5),
  n('escape_backslash_end_of_text', '"\\', S.JsonEnd, 2),

  // Objects the grammar refuses.
  n('object_unquoted_key', '{a:1}', S.JsonSyntax, 1),
  n('object_single_quoted_key', "{'a':1}", S.JsonSyntax, 1),
  n('object_number_key', '{1:1}', S.JsonSyntax, 1),
  n('object_array_key', '{[]:1}', S.JsonSyntax, 1),
  n('object_trailing_comma', '{"a":1,}', S.JsonSyntax, 7),
  n('object_leading_comma', '{,"a":1}', S.JsonSyntax, 1),
  n('object_comma_only', '{,}', S.JsonSyntax, 1),
  n('object_missing_colon', '{"a" 1}', S.JsonSyntax, 5),
  n('object_key_alone', '{"a"}', S.JsonSyntax, 4),
  n('object_double_colon', '{"a"::1}', S.JsonSyntax, 5),
  n('object_equals_for_colon', '{"a"=1}', S.JsonSyntax, 4),
  n('object_missing_value', '{"a":}', S.JsonSyntax, 5),
  n('object_missing_comma', '{"a":1 "b":2}', S.JsonSyntax, 7),
  n('object_semicolon_for_comma', '{"a":1;"b":2}', S.JsonSyntax, 6),
  n('object_closed_by_bracket', '{"a":1]', S.JsonSyntax, 6),
  n('object_unclosed_empty', '{', S.JsonEnd, 1),
  n('object_unclosed_after_key', '{"a"', S.JsonEnd, 4),
  n('object_unclosed_after_colon', '{"a":', S.JsonEnd, 5),
  n('object_unclosed_after_value', '{"a":1', S.JsonEnd, 6),
  n('object_unclosed_after_comma', '{"a":1,', S.JsonEnd, 7),
  n('object_extra_closing_brace', '{"a":1}}', S.Trailing, 7),

  // Arrays the grammar refuses.
  n('array_trailing_comma', '[1,]', S.JsonSyntax, 3),
  n('array_double_comma', '[1,,2]', S.JsonSyntax, 3),
  n('array_leading_comma', '[,1]', S.JsonSyntax, 1),
  n('array_comma_only', '[,]', S.JsonSyntax, 1),
  n('array_missing_comma', '[1 2]', S.JsonSyntax, 3),
  n('array_missing_comma_strings', '["a" "b"]', S.JsonSyntax, 5),
  n('array_colon', '["a":1]', S.JsonSyntax, 4),
  n('array_closed_by_brace', '[1}', S.JsonSyntax, 2),
  n('array_open_closed_by_brace', '[}', S.JsonSyntax, 1),
  n('array_unclosed_empty', '[', S.JsonEnd, 1),
  n('array_unclosed_after_value', '[1', S.JsonEnd, 2),
  n('array_unclosed_after_comma', '[1,', S.JsonEnd, 3),
  n('array_unclosed_nested', '[[]', S.JsonEnd, 3),
  n('array_extra_closing_bracket', '[1]]', S.Trailing, 3),
  n('array_empty_extra_closing_bracket', '[]]', S.Trailing, 2),
  n('array_closing_bracket_alone', ']', S.JsonSyntax, 0),
  n('object_closing_brace_alone', '}', S.JsonSyntax, 0),

  // Text that is not one value.
  n('structure_empty_text', '', S.JsonEnd, 0),
  n('structure_whitespace_only', ' \t\n\r', S.JsonEnd, 4),
  n('structure_two_numbers', '1 2', S.Trailing, 2),
  n('structure_two_objects', '{}{}', S.Trailing, 2),
  n('structure_two_arrays_with_space', '[] []', S.Trailing, 3),
  n('structure_two_strings', '"a""b"', S.Trailing, 3),
  n('structure_garbage_after_object', '{}x', S.Trailing, 2),
  n('structure_garbage_after_literal', 'truex', S.Trailing, 4),
  n('structure_two_literals', 'nullnull', S.Trailing, 4),
  n('structure_nul_after_value', b('1', [0x00]), S.Trailing, 1),
  n('structure_raw_control_outside_string', b('[', [0x01], ']'), S.JsonSyntax, 1),
  n('structure_angle_brackets', '<>', S.JsonSyntax, 0),
  n('structure_bare_word', 'abc', S.JsonSyntax, 0),
  n('structure_non_ascii_letter', 'é', S.JsonSyntax, 0),
  n('structure_comma_alone', ',', S.JsonSyntax, 0),
  n('structure_colon_alone', ':', S.JsonSyntax, 0),

  // Whitespace that JSON does not have.
  n('whitespace_vertical_tab_before', '\v1', S.JsonSyntax, 0),
  n('whitespace_vertical_tab_inside', '[\v1]', S.JsonSyntax, 1),
  n('whitespace_vertical_tab_after', '1\v', S.Trailing, 1),
  n('whitespace_form_feed_before', '\f[]', S.JsonSyntax, 0),
  n('whitespace_form_feed_inside', '[1\f]', S.JsonSyntax, 2),
  n('whitespace_form_feed_after', '[]\f', S.Trailing, 2),
  n('whitespace_nbsp_before', b([0xc2, 0xa0], '1'), S.JsonSyntax, 0),
  n('whitespace_nbsp_inside', b('[', [0xc2, 0xa0], '1]'), S.JsonSyntax, 1),
  n('whitespace_nbsp_after', b('1', [0xc2, 0xa0]), S.Trailing, 1),
  n('whitespace_ideographic_space', b('[', [0xe3, 0x80, 0x80], ']'), S.JsonSyntax, 1),
  n('whitespace_line_separator_after', b('1', [0xe2, 0x80, 0xa8]), S.Trailing, 1),

  // Comments.
  n('comment_line_after_value', '[1]//c', S.Trailing, 3),
  n('comment_line_inside', '[1,//c\n2]', S.JsonSyntax, 3),
  n('comment_block_before', '/*c*/[1]', S.JsonSyntax, 0),
  n('comment_block_inside', '[1/*c*/]', S.JsonSyntax, 2),
  n('comment_hash', '# c\n1', S.JsonSyntax, 0),

  // UTF-8 that is not (RFC 8259 section 8.1: JSON text MUST be UTF-8), in strings.
  n('utf8_overlong_2_byte_C0_80', b('["', [0xc0, 0x80], '"]'), S.Utf8, 2),
  n('utf8_overlong_2_byte_C1_BF', b('["', [0xc1, 0xbf], '"]'), S.Utf8, 2),
  n('utf8_overlong_3_byte_E0_80_80', b('["', [0xe0, 0x80, 0x80], '"]'), S.Utf8, 2),
  n('utf8_overlong_3_byte_E0_9F_BF', b('["', [0xe0, 0x9f, 0xbf], '"]'), S.Utf8, 2),
  n('utf8_overlong_4_byte_F0_80_80_80', b('["', [0xf0, 0x80, 0x80, 0x80], '"]'), S.Utf8, 2),
  n('utf8_overlong_4_byte_F0_8F_BF_BF', b('["', [0xf0, 0x8f, 0xbf, 0xbf], '"]'), S.Utf8, 2),
  n('utf8_surrogate_ED_A0_80', b('["', [0xed, 0xa0, 0x80], '"]'), S.Utf8, 2),
  n('utf8_surrogate_ED_BF_BF', b('["', [0xed, 0xbf, 0xbf], '"]'), S.Utf8, 2),
  n('utf8_surrogate_pair_as_cesu8', b('["', [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80], '"]'), S.Utf8, 2),
  n('utf8_above_U+10FFFF_F4_90_80_80', b('["', [0xf4, 0x90, 0x80, 0x80], '"]'), S.Utf8, 2),
  n('utf8_lone_continuation_80', b('["', [0x80], '"]'), S.Utf8, 2),
  n('utf8_lone_continuation_BF', b('["', [0xbf], '"]'), S.Utf8, 2),
  n('utf8_continuation_after_valid', b('["', [0xc3, 0xa9, 0xa9], '"]'), S.Utf8, 4),
  n('utf8_cut_2_byte', b('["', [0xc3], '"]'), S.Utf8, 2),
  n('utf8_cut_3_byte', b('["', [0xe2, 0x82], '"]'), S.Utf8, 2),
  n('utf8_cut_4_byte', b('["', [0xf0, 0x9f, 0x98], '"]'), S.Utf8, 2),
  n('utf8_cut_by_ascii', b('["', [0xe2, 0x28, 0xa1], '"]'), S.Utf8, 2),
  n('utf8_cut_by_end_of_text', b('"a', [0xe2, 0x82]), S.Utf8, 2),
  n('utf8_byte_F5', b('["', [0xf5, 0x80, 0x80, 0x80], '"]'), S.Utf8, 2),
  n('utf8_byte_F8', b('["', [0xf8, 0x88, 0x80, 0x80, 0x80], '"]'), S.Utf8, 2),
  n('utf8_byte_FC', b('["', [0xfc, 0x84, 0x80, 0x80, 0x80, 0x80], '"]'), S.Utf8, 2),
  n('utf8_byte_FE', b('["', [0xfe], '"]'), S.Utf8, 2),
  n('utf8_byte_FF', b('["', [0xff], '"]'), S.Utf8, 2),
  n('utf8_invalid_in_member_name', b('{"', [0xc0, 0x80], '":1}'), S.Utf8, 2),
  n('utf8_invalid_after_escape', b('["\\n', [0x80], '"]'), S.Utf8, 4),
  n('utf8_invalid_outside_string', b('[', [0x80], ']'), S.JsonSyntax, 1),

  // Byte-order marks (RFC 8259 section 8.1 lets a parser ignore one; rule 4.1 does not).
  iRefuse(
    'structure_bom',
    b([0xef, 0xbb, 0xbf], '{}'),
    'RFC 8259 section 8.1 lets a parser ignore a byte-order mark; rule 4.1 refuses it, since a strict peer may not',
    S.Bom,
    0,
  ),
  iRefuse(
    'structure_bom_after_whitespace',
    b(' ', [0xef, 0xbb, 0xbf], '1'),
    'a byte-order mark is refused wherever it stands before the value, at its first byte',
    S.Bom,
    1,
  ),
  iRefuse(
    'structure_bom_alone',
    [0xef, 0xbb, 0xbf],
    'a byte-order mark with no value after it is still a byte-order mark, refused at its first byte',
    S.Bom,
    0,
  ),
  iRefuse('structure_bom_after_value', b('1', [0xef, 0xbb, 0xbf]), 'after the value, U+FEFF is not whitespace: trailing bytes', S.Trailing, 1),
  iRefuse('structure_utf16_be_bom', [0xfe, 0xff, 0x00, 0x31], 'UTF-16 is not UTF-8: 0xFE cannot start a value', S.JsonSyntax, 0),
  iAccept(
    'string_feff_inside_string',
    b('"', [0xef, 0xbb, 0xbf], '"'),
    'U+FEFF inside a string is a character like any other; only a mark before the value is refused',
  ),

  // Duplicate member names (RFC 8259 section 4: behaviour unpredictable).
  iAccept(
    'object_duplicate_key',
    '{"a":1,"a":2}',
    'WIRE.md rule 4.4: duplicate member names are accepted and the last wins, as in JSON.parse; rule 4.1 does not refuse them',
  ),
  iAccept('object_duplicate_key_same_value', '{"a":1,"a":1}', 'rule 4.4: duplicates are accepted'),
  iAccept('object_duplicate_key_by_escape', r`{"a":1,"\u0061":2}`, 'rule 4.4: names are compared decoded, and duplicates are accepted either way'),
  iAccept('object_duplicate_key_nested', '{"x":{"k":[],"k":{}}}', 'rule 4.4 holds at every level'),

  // Characters RFC 8259 allows but some implementations mistrust.
  iAccept(
    'string_escaped_nul',
    r`"\u0000"`,
    'the grammar allows any escape; U+0000 is a character, and rule 4.1 refuses only raw control characters',
  ),
  iAccept('string_escaped_nul_in_key', r`{"\u0000":1}`, 'as in a value: an escaped U+0000 is allowed in a member name'),
  iAccept(
    'string_noncharacter_U+FFFF',
    b('"', [0xef, 0xbf, 0xbf], '"'),
    'U+FFFF is a noncharacter but valid UTF-8 (Unicode table 3-7); rule 4.1 checks UTF-8, not character properties',
  ),
  iAccept('string_noncharacter_U+FFFE', b('"', [0xef, 0xbf, 0xbe], '"'), 'a noncharacter, but valid UTF-8'),
  iAccept('string_noncharacter_U+FDD0', b('"', [0xef, 0xb7, 0x90], '"'), 'a noncharacter, but valid UTF-8'),
  iAccept('string_noncharacter_U+1FFFE', b('"', [0xf0, 0x9f, 0xbf, 0xbe], '"'), 'a noncharacter, but valid UTF-8'),
  iAccept(
    'string_noncharacter_U+10FFFF',
    b('"', [0xf4, 0x8f, 0xbf, 0xbf], '"'),
    'the highest code point, a noncharacter: the 4-byte upper boundary is accepted',
  ),
  iAccept(
    'string_escaped_noncharacters',
    r`"\uFFFF\uFFFE\uFDD0\uDBFF\uDFFF"`,
    'escaped noncharacters (the last pair is U+10FFFF) are well-formed text',
  ),

  // Surrogate escapes (RFC 8259 section 8.2: a lone one is grammatical, its meaning unpredictable).
  iRefuse('string_lone_high_surrogate', r`["\uD800"]`, 'rule 4.1: a high surrogate escape must be followed at once by a low one', S.LoneSurrogate, 2),
  iRefuse('string_lone_high_surrogate_lower_hex', r`["\udbff"]`, 'rule 4.1: lone high surrogate, hex case does not matter', S.LoneSurrogate, 2),
  iRefuse('string_lone_low_surrogate', r`["\uDC00"]`, 'rule 4.1: a low surrogate escape never stands alone', S.LoneSurrogate, 2),
  iRefuse('string_lone_low_surrogate_DFFF', r`["\uDFFF"]`, 'rule 4.1: a low surrogate escape never stands alone', S.LoneSurrogate, 2),
  iRefuse(
    'string_high_then_non_surrogate_escape',
    r`["\uD800\u0041"]`,
    'rule 4.1: the escape after a high surrogate must be a low surrogate; the fault is the high one, at its backslash',
    S.LoneSurrogate,
    2,
  ),
  iRefuse('string_high_then_high', r`["\uD800\uD800"]`, 'rule 4.1: two high surrogates are not a pair', S.LoneSurrogate, 2),
  iRefuse('string_high_then_short_escape', r`["\uD800\n"]`, 'rule 4.1: only a \\u escape of a low surrogate completes the pair', S.LoneSurrogate, 2),
  iRefuse('string_high_then_character', r`["\uD800a"]`, 'rule 4.1: a character, not a low surrogate escape, follows', S.LoneSurrogate, 2),
  iRefuse(
    'string_high_then_raw_low_bytes',
    b('["\\uD800', [0xed, 0xb0, 0x80], '"]'),
    'rule 4.1: the pair must be two escapes; the first fault in reading order is the lone high escape',
    S.LoneSurrogate,
    2,
  ),
  iRefuse(
    'string_high_then_cut_escape',
    r`["\uD800\uDC"]`,
    'rule 4.1: no whole low surrogate escape follows, so the high one is lone',
    S.LoneSurrogate,
    2,
  ),
  iRefuse('string_high_at_end_of_string', r`["a\uD800"]`, 'rule 4.1: the string ends before a low surrogate', S.LoneSurrogate, 3),
  iRefuse('string_reversed_pair', r`["\uDC00\uD800"]`, 'rule 4.1: a low surrogate first is lone', S.LoneSurrogate, 2),
  iRefuse('string_low_after_pair', r`["\uD83D\uDE00\uDE00"]`, 'rule 4.1: a pair consumes one low surrogate; the next is lone', S.LoneSurrogate, 14),
  iRefuse('string_lone_surrogate_in_key', r`{"\uDFFF":1}`, 'rule 4.1 holds in member names too', S.LoneSurrogate, 2),

  // Numbers at the double boundary (RFC 8259 section 6).
  iAccept('number_max_double', '1.7976931348623157e308', WHY_RANGE_OK),
  iAccept('number_max_double_negative', '-1.7976931348623157e308', WHY_RANGE_OK),
  iAccept(
    'number_rounds_down_to_max_double',
    '1.7976931348623158e308',
    `${WHY_RANGE_OK}: this is below 2^1024 - 2^970, so it rounds to the largest double`,
  ),
  iRefuse('number_rounds_up_to_infinity', '1.7976931348623159e308', WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_1.8e308', '1.8e308', WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_minus_1.8e308', '-1.8e308', `${WHY_RANGE_BAD}; the offset is the minus sign`, S.NumberRange, 0),
  iRefuse('number_2e308', '[2e308]', WHY_RANGE_BAD, S.NumberRange, 1),
  iRefuse('number_1e309', '[1e309]', WHY_RANGE_BAD, S.NumberRange, 1),
  iRefuse('number_1e400', '1e400', WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_minus_1e400_in_object', '{"a":-1e400}', WHY_RANGE_BAD, S.NumberRange, 5),
  iRefuse('number_huge_exponent', '1.5e+9999', WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_exponent_past_int32', '[1e2147483648]', WHY_RANGE_BAD, S.NumberRange, 1),
  iRefuse('number_10e308', '10e308', `${WHY_RANGE_BAD} (10e308 is 1e309)`, S.NumberRange, 0),
  iRefuse('number_0.1e310', '0.1e310', `${WHY_RANGE_BAD} (0.1e310 is 1e309)`, S.NumberRange, 0),
  iAccept('number_0.1e309', '0.1e309', `${WHY_RANGE_OK} (0.1e309 is 1e308)`),
  iAccept('number_shifted_max_17976931348623158e292', '17976931348623158e292', `${WHY_RANGE_OK}: the same value as 1.7976931348623158e308`),
  iRefuse(
    'number_shifted_over_0.00017976931348623159e312',
    '0.00017976931348623159e312',
    `${WHY_RANGE_BAD}: the same value as 1.7976931348623159e308`,
    S.NumberRange,
    0,
  ),
  iAccept(
    'number_zero_with_huge_exponent',
    '0e99999999999',
    'zero times any power of ten is zero, which is finite: the exponent alone does not decide',
  ),
  iAccept('number_negative_zero_fraction_huge_exponent', '-0.000e99999999999', 'still zero, so finite'),
  iAccept('number_underflow_1e-400', '1e-400', WHY_UNDERFLOW),
  iAccept('number_underflow_negative', '-1e-400', `${WHY_UNDERFLOW} (-0)`),
  iAccept('number_underflow_huge_negative_exponent', '[1e-99999999999]', WHY_UNDERFLOW),
  iAccept('number_below_smallest_denormal', '2e-324', WHY_UNDERFLOW),
  iAccept('number_int_309_digits_just_under_threshold', (T - 1n).toString(), `${WHY_RANGE_OK}: 2^1024 - 2^970 - 1 rounds down to the largest double`),
  iAccept('number_int_309_digits_max_double_exact', M.toString(), `${WHY_RANGE_OK}: the largest double, written out in full`),
  iAccept('number_int_309_digits_1e308', `1${'0'.repeat(308)}`, WHY_RANGE_OK),
  iRefuse(
    'number_int_309_digits_at_threshold',
    T_DIGITS,
    `${WHY_RANGE_BAD}: 2^1024 - 2^970 is a tie, and ties round to even, which is 2^1024`,
    S.NumberRange,
    0,
  ),
  iRefuse('number_int_309_digits_above_threshold', (T + 1n).toString(), WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_int_309_nines', '9'.repeat(309), WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_int_309_digits_2e308', `2${'0'.repeat(308)}`, WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_int_309_digits_at_threshold_in_array', `[${T_DIGITS}]`, WHY_RANGE_BAD, S.NumberRange, 1),
  iRefuse('number_int_309_digits_at_threshold_negative', `-${T_DIGITS}`, WHY_RANGE_BAD, S.NumberRange, 0),
  iRefuse('number_int_309_digits_at_threshold_with_fraction', `${T_DIGITS}.0`, WHY_RANGE_BAD, S.NumberRange, 0),
  iAccept(
    'number_int_309_digits_under_threshold_long_fraction',
    `${(T - 1n).toString()}.${'9'.repeat(400)}`,
    `${WHY_RANGE_OK}: T - 1 + 0.999... is still below T`,
  ),
  iAccept('number_int_308_nines', '9'.repeat(308), WHY_RANGE_OK),
  iRefuse('number_int_400_digits', `1${'0'.repeat(399)}`, WHY_RANGE_BAD, S.NumberRange, 0),
  iAccept('number_int_400_digits_negative_exponent', `1${'0'.repeat(399)}e-100`, `${WHY_RANGE_OK}: 1e399 times 1e-100 is 1e299`),
  iRefuse('number_threshold_digits_as_fraction', `1.${T_DIGITS.slice(1)}e308`, `${WHY_RANGE_BAD}: T written with a decimal point`, S.NumberRange, 0),
  iAccept('number_threshold_minus_one_as_fraction', `1.${(T - 1n).toString().slice(1)}e308`, WHY_RANGE_OK),
  iRefuse(
    'number_threshold_as_fraction_trailing_zeros',
    `0.${T_DIGITS}000000e309`,
    `${WHY_RANGE_BAD}: trailing zeros do not move a tie`,
    S.NumberRange,
    0,
  ),
  iAccept('number_long_fraction', `0.${'1'.repeat(1000)}`, 'a fraction of any length rounds to a finite double'),
  iAccept('number_long_fraction_after_zeros', `1.${'0'.repeat(500)}1`, 'a fraction of any length rounds to a finite double'),
  iAccept('number_long_fraction_underflow', `0.${'0'.repeat(400)}1`, WHY_UNDERFLOW),
  iAccept(
    'number_precision_beyond_double',
    '1.00000000000000011102230246251565404236316680908203125',
    "digits beyond a double's precision round; rule 4.1 refuses only non-finite values",
  ),
  iAccept('number_exponent_many_leading_zeros', '1e0000000000000000000308', `${WHY_RANGE_OK}: leading zeros in the exponent change nothing`),
  iRefuse('number_exponent_many_leading_zeros_over', '1e0000000000000000000309', WHY_RANGE_BAD, S.NumberRange, 0),

  // Nesting (RFC 8259 section 9).
  iAccept('structure_depth_127_arrays', arrays127.text, WHY_DEPTH_OK),
  iRefuse('structure_depth_128_arrays', arrays128.text, WHY_DEPTH_BAD, S.Depth, arrays128.at128),
  iAccept('structure_depth_127_objects', objects127.text, WHY_DEPTH_OK),
  iRefuse('structure_depth_128_objects', objects128.text, WHY_DEPTH_BAD, S.Depth, objects128.at128),
  iAccept('structure_depth_127_mixed', mixed127.text, `${WHY_DEPTH_OK}; objects and arrays count alike`),
  iRefuse('structure_depth_128_mixed', mixed128.text, `${WHY_DEPTH_BAD}; objects and arrays count alike`, S.Depth, mixed128.at128),
  iRefuse('structure_depth_128_with_whitespace', spaced128.text, WHY_DEPTH_BAD, S.Depth, spaced128.at128),
  iRefuse('structure_depth_128_unclosed', '['.repeat(128), `${WHY_DEPTH_BAD}, before the end of text is reached`, S.Depth, 127),
  iRefuse('structure_depth_500', '['.repeat(500) + ']'.repeat(500), WHY_DEPTH_BAD, S.Depth, 127),
  iAccept(
    'structure_depth_127_twice',
    `[${'['.repeat(126)}${']'.repeat(126)},${'['.repeat(126)}${']'.repeat(126)}]`,
    `${WHY_DEPTH_OK}; depth is nesting, not the count of containers`,
  ),
  iAccept('structure_depth_127_empty_innermost', '['.repeat(127) + ']'.repeat(127), WHY_DEPTH_OK),
];
