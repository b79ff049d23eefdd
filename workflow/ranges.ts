import { ErrorCode, localizedError } from "../contracts/errors.ts";

/** A range written `<from>~<to>` (spec 001's timestamps, milestones, ratings); either side may be empty. */
export interface NumberRange {
  from: number | undefined;
  to: number | undefined;
}

/** The latest Unix second a time range may name: the end of year 9999, as spec 001's examples use. */
export const LATEST_SECOND = 253_402_300_799;
/** The bound of a range over an integer column (milestone percent, rating). */
export const LARGEST_INTEGER = 2_147_483_647;

/**
 * Reads a range parameter of whole numbers no larger than `largest` either way; a malformed one is
 * refused naming the parameter, so no value reaches Postgres that its column or `to_timestamp` refuses.
 */
export function parseRange(text: string, parameter: string, largest = LATEST_SECOND): NumberRange {
  const match = /^\s*(-?\d{1,15})?\s*~\s*(-?\d{1,15})?\s*$/.exec(text);
  const from = match?.[1] === undefined ? undefined : Number(match[1]);
  const to = match?.[2] === undefined ? undefined : Number(match[2]);
  const outside = (value: number | undefined) => value !== undefined && Math.abs(value) > largest;
  if (!match || outside(from) || outside(to) || (from !== undefined && to !== undefined && from > to)) {
    throw localizedError(
      ErrorCode.InvalidArgument,
      "invalidParameter",
      {
        field: parameter,
        detail: `a range <from>~<to> of whole numbers up to ${largest}, either side may be empty, from not above to`,
      },
      { field: parameter },
    );
  }
  return { from, to };
}
