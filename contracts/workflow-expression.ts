/**
 * The condition language of exclusive edges: a small expression language over the process data,
 * parsed and evaluated here (never `eval`). Examples: `days > 3 && type == "sick"`,
 * `action == "reject" || amount >= 10000`, `contains(tags, "urgent")`, `len(items) > 0`,
 * `dept in ["cs", "math"]`. Names are form fields (dotted for nested values); `action` is the code
 * of the action just taken. Evaluation never throws: a comparison of unlike values is false, and
 * arithmetic on non-numbers gives null.
 */

export type Expression =
  | { kind: "literal"; value: unknown }
  | { kind: "name"; path: string[] }
  | { kind: "list"; items: Expression[] }
  | { kind: "unary"; op: "!" | "-"; operand: Expression }
  | { kind: "binary"; op: BinaryOperator; left: Expression; right: Expression }
  | { kind: "call"; fn: FunctionName; args: Expression[] };

type BinaryOperator =
  | "||"
  | "&&"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "in"
  | "+"
  | "-"
  | "*"
  | "/"
  | "%";

const FUNCTIONS = { len: 1, contains: 2, empty: 1, lower: 1 } as const;
type FunctionName = keyof typeof FUNCTIONS;

/** The name an expression uses for the code of the action taken. */
export const ACTION_NAME = "action";

const MAX_DEPTH = 64;

export class ExpressionError extends Error {
  override name = "ExpressionError";
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at character ${position + 1}`);
  }
}

interface Token {
  type: "number" | "string" | "name" | "op" | "end";
  text: string;
  value?: unknown;
  at: number;
}

const OPERATORS = [
  "||",
  "&&",
  "==",
  "!=",
  "<=",
  ">=",
  "<",
  ">",
  "!",
  "+",
  "-",
  "*",
  "/",
  "%",
  "(",
  ")",
  "[",
  "]",
  ",",
  ".",
];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const at = i;
    if (/[0-9]/.test(ch)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(source.slice(i))!;
      tokens.push({ type: "number", text: match[0], value: Number(match[0]), at });
      i += match[0].length;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let text = "";
      i++;
      while (i < source.length && source[i] !== ch) {
        if (source[i] === "\\" && i + 1 < source.length) i++;
        text += source[i];
        i++;
      }
      if (i >= source.length) throw new ExpressionError("a string is not closed", at);
      i++;
      tokens.push({ type: "string", text, value: text, at });
      continue;
    }
    if (/[A-Za-z_\u0080-\uffff]/.test(ch)) {
      const match = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*/.exec(source.slice(i))!;
      tokens.push({ type: "name", text: match[0], at });
      i += match[0].length;
      continue;
    }
    const op = OPERATORS.find((candidate) => source.startsWith(candidate, i));
    if (!op) throw new ExpressionError(`unexpected ${JSON.stringify(ch)}`, at);
    tokens.push({ type: "op", text: op, at });
    i += op.length;
  }
  tokens.push({ type: "end", text: "", at: source.length });
  return tokens;
}

const BINARY_LEVELS: readonly (readonly string[])[] = [
  ["||", "or"],
  ["&&", "and"],
  ["==", "!=", "<", "<=", ">", ">=", "in"],
  ["+", "-"],
  ["*", "/", "%"],
];
const WORD_OPERATORS: Record<string, BinaryOperator> = { or: "||", and: "&&", in: "in" };

/** Parses a condition; a mistake throws an `ExpressionError` naming where it is. */
export function parseExpression(source: string): Expression {
  const tokens = tokenize(source);
  let position = 0;
  const peek = () => tokens[position]!;
  const next = () => tokens[position++]!;
  const expect = (text: string) => {
    const token = next();
    if (token.text !== text) throw new ExpressionError(`expected ${JSON.stringify(text)}`, token.at);
  };
  const operatorAt = (token: Token, level: readonly string[]): BinaryOperator | undefined => {
    if (token.type === "op" && level.includes(token.text)) return token.text as BinaryOperator;
    if (token.type === "name" && level.includes(token.text)) return WORD_OPERATORS[token.text];
    return undefined;
  };

  function binary(level: number, depth: number): Expression {
    if (depth > MAX_DEPTH) throw new ExpressionError("nested too deeply", peek().at);
    if (level >= BINARY_LEVELS.length) return unary(depth);
    let left = binary(level + 1, depth + 1);
    // Comparisons do not chain: `a < b < c` is refused rather than read surprisingly.
    const chains = level !== 2;
    for (
      let op = operatorAt(peek(), BINARY_LEVELS[level]!);
      op;
      op = chains ? operatorAt(peek(), BINARY_LEVELS[level]!) : undefined
    ) {
      next();
      left = { kind: "binary", op, left, right: binary(level + 1, depth + 1) };
    }
    return left;
  }

  function unary(depth: number): Expression {
    const token = peek();
    if (token.type === "op" && (token.text === "!" || token.text === "-")) {
      next();
      return { kind: "unary", op: token.text, operand: unary(depth + 1) };
    }
    if (token.type === "name" && token.text === "not") {
      next();
      return { kind: "unary", op: "!", operand: unary(depth + 1) };
    }
    return primary(depth);
  }

  function primary(depth: number): Expression {
    if (depth > MAX_DEPTH) throw new ExpressionError("nested too deeply", peek().at);
    const token = next();
    if (token.type === "number" || token.type === "string") return { kind: "literal", value: token.value };
    if (token.type === "op" && token.text === "(") {
      const inner = binary(0, depth + 1);
      expect(")");
      return inner;
    }
    if (token.type === "op" && token.text === "[") {
      const items: Expression[] = [];
      if (peek().text !== "]") {
        do items.push(binary(0, depth + 1));
        while (peek().text === "," && next());
      }
      expect("]");
      return { kind: "list", items };
    }
    if (token.type === "name") {
      if (token.text === "true" || token.text === "false")
        return { kind: "literal", value: token.text === "true" };
      if (token.text === "null") return { kind: "literal", value: null };
      if (peek().text === "(") {
        if (!(token.text in FUNCTIONS)) throw new ExpressionError(`no function ${token.text}`, token.at);
        next();
        const fn = token.text as FunctionName;
        const args: Expression[] = [];
        if (peek().text !== ")") {
          do args.push(binary(0, depth + 1));
          while (peek().text === "," && next());
        }
        expect(")");
        if (args.length !== FUNCTIONS[fn]) {
          throw new ExpressionError(`${fn} takes ${FUNCTIONS[fn]} argument(s)`, token.at);
        }
        return { kind: "call", fn, args };
      }
      const path = [token.text];
      while (peek().text === ".") {
        next();
        const part = next();
        if (part.type !== "name") throw new ExpressionError("expected a name after the dot", part.at);
        path.push(part.text);
      }
      return { kind: "name", path };
    }
    throw new ExpressionError(
      token.type === "end" ? "the expression ends too early" : `unexpected ${JSON.stringify(token.text)}`,
      token.at,
    );
  }

  const expression = binary(0, 0);
  const rest = peek();
  if (rest.type !== "end") throw new ExpressionError(`unexpected ${JSON.stringify(rest.text)}`, rest.at);
  return expression;
}

/** The first name of every field the expression reads (`a` of `a.b`), `action` left out. */
export function fieldsRead(expression: Expression): Set<string> {
  const names = new Set<string>();
  const visit = (node: Expression): void => {
    switch (node.kind) {
      case "name":
        if (node.path[0] !== ACTION_NAME) names.add(node.path[0]!);
        return;
      case "list":
        node.items.forEach(visit);
        return;
      case "unary":
        visit(node.operand);
        return;
      case "binary":
        visit(node.left);
        visit(node.right);
        return;
      case "call":
        node.args.forEach(visit);
        return;
      case "literal":
        return;
    }
  };
  visit(expression);
  return names;
}

function read(scope: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = scope;
  for (const part of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value === undefined ? null : value;
}

function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => equal(item, b[i]));
  return a === b;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && value !== false && value !== 0 && value !== "" && value !== undefined;
}

function compare(op: "<" | "<=" | ">" | ">=", a: unknown, b: unknown): boolean {
  const comparable =
    (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
  if (!comparable) return false;
  const x = a as number | string;
  const y = b as number | string;
  return op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
}

function arithmetic(op: "+" | "-" | "*" | "/" | "%", a: unknown, b: unknown): unknown {
  if (op === "+" && typeof a === "string" && typeof b === "string") return a + b;
  if (typeof a !== "number" || typeof b !== "number") return null;
  if ((op === "/" || op === "%") && b === 0) return null;
  return op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : op === "/" ? a / b : a % b;
}

/** The value of an expression over `scope` (the process data, with `action` set when one was taken). */
export function evaluate(expression: Expression, scope: Record<string, unknown>): unknown {
  switch (expression.kind) {
    case "literal":
      return expression.value;
    case "name":
      return read(scope, expression.path);
    case "list":
      return expression.items.map((item) => evaluate(item, scope));
    case "unary": {
      const operand = evaluate(expression.operand, scope);
      if (expression.op === "!") return !truthy(operand);
      return typeof operand === "number" ? -operand : null;
    }
    case "binary": {
      const { op } = expression;
      if (op === "||")
        return truthy(evaluate(expression.left, scope)) || truthy(evaluate(expression.right, scope));
      if (op === "&&")
        return truthy(evaluate(expression.left, scope)) && truthy(evaluate(expression.right, scope));
      const left = evaluate(expression.left, scope);
      const right = evaluate(expression.right, scope);
      switch (op) {
        case "==":
          return equal(left, right);
        case "!=":
          return !equal(left, right);
        case "in":
          return Array.isArray(right)
            ? right.some((item) => equal(item, left))
            : typeof right === "string" && typeof left === "string" && right.includes(left);
        case "<":
        case "<=":
        case ">":
        case ">=":
          return compare(op, left, right);
        default:
          return arithmetic(op, left, right);
      }
    }
    case "call": {
      const [first, second] = expression.args.map((arg) => evaluate(arg, scope));
      switch (expression.fn) {
        case "len":
          return Array.isArray(first) || typeof first === "string" ? first.length : 0;
        case "contains":
          return Array.isArray(first)
            ? first.some((item) => equal(item, second))
            : typeof first === "string" && typeof second === "string" && first.includes(second);
        case "empty":
          return !truthy(first);
        case "lower":
          return typeof first === "string" ? first.toLowerCase() : first;
      }
    }
  }
}

/** Whether the condition holds. */
export function holds(expression: Expression, scope: Record<string, unknown>): boolean {
  return truthy(evaluate(expression, scope));
}
