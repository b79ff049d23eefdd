/** How deep arrays and objects in what a client sends may nest, unless the operator says otherwise. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth` (`[]` is one level), read in
 * one pass over the text without parsing it. Parsing deep text is cheap, but what walks the value
 * afterwards (serialising it for Postgres or a job, validators, templates) recurses and runs out
 * of stack. For well-formed JSON the count is exact: a string starts and ends at an unescaped
 * quote, and an escape is a backslash and one character. Text that is not JSON is left to the parser.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if ((c === CLOSE_BRACKET || c === CLOSE_BRACE) && depth > 0) {
      depth--;
    }
  }
  return false;
}

/** The refusal's wording, the same wherever JSON arrives (a body, a parameter, a form field). */
export function tooDeepDetail(maxDepth: number): string {
  return `JSON nests arrays and objects deeper than ${maxDepth} levels (JSON_MAX_DEPTH)`;
}
