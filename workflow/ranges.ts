import { ErrorCode, localizedError } from "../contracts/errors.ts";

/** A range written `<from>~<to>` (spec 001's timestamps, milestones, ratings); either side may be empty. */
export interface NumberRange {
  from: number | undefined;
  to: number | undefined;
}

/** Reads a range parameter; a malformed one is refused naming the parameter. */
export function parseRange(text: string, parameter: string): NumberRange {
  const match = /^\s*(-?\d+(?:\.\d+)?)?\s*~\s*(-?\d+(?:\.\d+)?)?\s*$/.exec(text);
  const from = match?.[1] === undefined ? undefined : Number(match[1]);
  const to = match?.[2] === undefined ? undefined : Number(match[2]);
  if (!match || (from !== undefined && to !== undefined && from > to)) {
    throw localizedError(
      ErrorCode.InvalidArgument,
      "invalidParameter",
      { field: parameter, detail: "a range <from>~<to>, either side may be empty, from not above to" },
      { field: parameter },
    );
  }
  return { from, to };
}
