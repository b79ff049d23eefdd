import fc from "fast-check";

/**
 * Pieces of text that break naive code: NUL (Postgres refuses it in text and jsonb), lone
 * surrogates, direction marks, joiners and emoji, quotes and escapes, path and template syntax.
 */
export const NASTY_FRAGMENTS = [
  "\u0000",
  "\uD800",
  "\uDFFF",
  "\uDBFF\uDBFF",
  "\u202E",
  "\u200F",
  "\u200B",
  "\u2028",
  "\uFEFF",
  "\uFFFF",
  "\u{10FFFF}",
  "😀",
  "👩‍👩‍👧‍👦",
  "🇺🇳",
  "e\u0301\u0301\u0301",
  "ﷺ",
  "ß",
  "İ",
  "١٢٣",
  "甲方盖章",
  "\r\n",
  "\t",
  "\u007F",
  "\u001B[31m",
  "'",
  '"',
  "\\",
  "`",
  "%",
  "%00",
  "%2e%2e%2f",
  "../",
  "..\\",
  "${",
  "${name}",
  "{{7*7}}",
  "<script>alert(1)</script>",
  "'; drop table users; --",
  "\u00A0",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "1e309",
  "-1e309",
  "18446744073709551616",
  "9007199254740993",
  "0x1F",
  "1_000",
  "true",
  "__proto__",
  "constructor",
  "valueOf",
  "toString",
  "hasOwnProperty",
  ",",
  " ",
  "@",
  "*",
  ":",
  "/",
] as const;

export const nastyFragment = fc.constantFrom(...NASTY_FRAGMENTS);

/** Text a client should not send but may: nasty pieces among ordinary characters, or a very long run. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(nastyFragment, fc.string({ maxLength: 4 })), { maxLength: 8 })
      .map((parts) => parts.join("")),
  },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.oneof(nastyFragment, fc.constant("a")), fc.integer({ min: 250, max: 6000 }))
      .map(([piece, times]) => piece.repeat(Math.ceil(times / piece.length))),
  },
);

/** Numbers, as JSON writes them, that parsers and validators get wrong. */
export const NASTY_NUMBER_TEXTS = [
  "1e309",
  "-1e309",
  "-0",
  "0.0",
  "18446744073709551616",
  "9007199254740993",
  "-9223372036854775809",
  "1e-400",
  "4.9e-324",
  "1.7976931348623157e308",
  "123456789012345678901234567890",
  "0.1",
  "-1",
  "2147483648",
] as const;

export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(-0, 2 ** 64, 2 ** 53 + 1, -(2 ** 63), 0.5, -1, 1e21, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A scalar of any JSON type, mostly of the unexpected kinds. */
export const nastyScalar: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  nastyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.constant({}),
  fc.constant([]),
);

/** Arbitrary JSON with nasty strings for keys and values, nested a few levels. */
export const nastyJsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    nastyScalar,
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.oneof(nastyString, fc.string({ maxLength: 8 })), tie("value"), { maxKeys: 5 }),
  ),
})).value;

/**
 * JSON text that is not JSON, or JSON that stresses a parser: truncated and trailing commas,
 * comments, single quotes, a byte-order mark, numbers out of range, deep nesting.
 */
export const malformedJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "{",
    "}",
    "[",
    '{"a":',
    '{"a":1,}',
    "[1,2,]",
    "{'a':1}",
    '{"a":1}/*x*/',
    "\uFEFF{}",
    '{"a":"\\uD800"}',
    '{"a":"\\u0000"}',
    '{"a":"\\x41"}',
    '{"a":01}',
    '{"a":.5}',
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":undefined}',
    "null",
    "true",
    "0",
    '"string"',
    "[]",
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"a":1,"a":2}',
  ),
  fc
    .constantFrom(...NASTY_NUMBER_TEXTS)
    .map((number) => `{"value":${number},"limit":${number},"start":${number}}`),
  fc.integer({ min: 1000, max: 30_000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
  fc.integer({ min: 1000, max: 20_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1))),
);

/** Percent-encodes a string's UTF-8 bytes (lone surrogates become U+FFFD, as any encoder makes them). */
export function percentEncode(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Escapes that are not well-formed UTF-8 or not escapes at all: overlong, CESU surrogates, stray `%`. */
export const RAW_ESCAPES = [
  "%00",
  "%FF",
  "%C0%AF",
  "%C0%AE%C0%AE%C0%AF",
  "%ED%A0%80",
  "%E0%80%AF",
  "%F4%90%80%80",
  "%",
  "%%",
  "%2",
  "%zz",
  "%u0041",
  "%252e%252e%252f",
] as const;

/** A value ready for a URL: a nasty string encoded, or broken escapes as they are. */
export const urlValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: nastyString.map(percentEncode) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...RAW_ESCAPES), fc.stringMatching(/^[a-z0-9]{0,6}$/)), {
        minLength: 1,
        maxLength: 5,
      })
      .map((parts) => parts.join("")),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...NASTY_NUMBER_TEXTS, "NaN", "Infinity", "true", "[]", "{}", "null"),
  },
  { weight: 1, arbitrary: fc.integer({ min: 2000, max: 9000 }).map((n) => "9".repeat(n)) },
);

/** File ids and path segments that try to leave their directory or hide a NUL. */
export const TRAVERSALS = [
  "../../etc/passwd",
  "..%2f..%2fetc%2fpasswd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
  "..%5c..%5cwindows%5cwin.ini",
  "..\\..\\windows\\win.ini",
  "%2e%2e",
  "..",
  ".",
  "....//....//etc/passwd",
  "..;/..;/etc/passwd",
  "%c0%ae%c0%ae%c0%afetc%c0%afpasswd",
  "%252e%252e%252fetc%252fpasswd",
  "%00",
  "file.pdf%00.png",
  "00000000-0000-0000-0000-000000000000%00",
  "00000000-0000-0000-0000-000000000000%2f..%2f..",
  "/etc/passwd",
  "%2fetc%2fpasswd",
  "~root",
  "uploads%2f..%2f..%2fbootstrap.json",
  "%20",
  "CON",
  "aux.txt",
] as const;

export const traversal = fc.constantFrom(...TRAVERSALS);

/** A query string of repeated, empty, valueless and huge parameters, named from `names` or at random. */
export function queryString(names: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 4, arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.constant("q") },
    { weight: 1, arbitrary: urlValue.map((value) => value.slice(0, 60)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "access_token",
        "domain",
        "start",
        "limit",
        "id",
        "__proto__",
        "a[]",
        "a[b]",
        "",
      ),
    },
  );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(name, urlValue).map(([key, value]) => `${key}=${value}`) },
    { weight: 1, arbitrary: name },
    {
      weight: 1,
      arbitrary: fc.tuple(name, urlValue).map(([key, value]) => `${key}=${value}&${key}=${value}`),
    },
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join("&"));
}
