import { ErrorCode, localizedError } from "../contracts/errors.ts";
import { LARGEST_INTEGER, type NumberRange, parseRange } from "./ranges.ts";

/**
 * The parameters of spec 001's process lists (2.4-2.7) read into filters; a malformed one is
 * refused naming the parameter.
 */

/** 2.4 doing, 2.5 done, 2.6 completed and 2.7's categories the inbox answers. */
export const PROCESS_CATEGORIES = [
  "doing",
  "done",
  "completed",
  "unrated",
  "cc",
  "entrusted",
  "operator",
] as const;
export type ProcessCategory = (typeof PROCESS_CATEGORIES)[number];

export const ORDER_FIELDS = ["update", "create", "action", "auto"] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];

export interface ListOrder {
  field: OrderField;
  descending: boolean;
}

const STATUSES = ["draft", "doing", "suspended", "done", "killed"] as const;

/** Most keyword terms one list takes, and their longest. */
export const MAX_TERMS = 10;
export const MAX_TERM_LENGTH = 64;

export interface ProcessFilters {
  /** App code (or id), resolved to the app by the store. */
  app?: string | undefined;
  entry?: number | undefined;
  /** Keyword terms, OR-combined. */
  terms: string[];
  fullText: boolean;
  timestamps?: NumberRange | undefined;
  lastUpdate?: NumberRange | undefined;
  orderTimes?: NumberRange | undefined;
  milestones?: NumberRange | undefined;
  ratings?: NumberRange | undefined;
  statuses?: string[] | undefined;
  states?: string[] | undefined;
  sep?: boolean | undefined;
  thing?: boolean | undefined;
  unread?: boolean | undefined;
  archive: boolean;
  order: ListOrder;
  start: number;
  limit: number;
}

function refuse(parameter: string, detail: string): never {
  throw localizedError(
    ErrorCode.InvalidArgument,
    "invalidParameter",
    { field: parameter, detail },
    { field: parameter },
  );
}

/** `order`: `{field} [desc|asc]`, field `update`, `create`, `action` or `auto` (the default, descending). */
export function parseOrder(text: string | undefined): ListOrder {
  if (text === undefined || text.trim() === "") return { field: "auto", descending: true };
  const match = /^\s*(update|create|action|auto)(?:\s+(desc|asc))?\s*$/i.exec(text);
  if (!match) refuse("order", "update, create, action or auto, then optionally desc or asc");
  return {
    field: match[1]!.toLowerCase() as OrderField,
    descending: (match[2] ?? "desc").toLowerCase() === "desc",
  };
}

/**
 * `keyword`: terms split on spaces and commas (ASCII and full-width), each kept when it holds a
 * letter or digit; at most 10 terms of 64 characters.
 */
export function keywordTerms(text: string | undefined): string[] {
  if (!text) return [];
  const terms = [
    ...new Set(
      text
        .split(/[\s,，、]+/u)
        .map((term) => term.toLowerCase())
        .filter((term) => /[\p{L}\p{N}]/u.test(term)),
    ),
  ];
  if (terms.length > MAX_TERMS || terms.some((term) => term.length > MAX_TERM_LENGTH)) {
    refuse("keyword", `at most ${MAX_TERMS} terms of ${MAX_TERM_LENGTH} characters`);
  }
  return terms;
}

function range(text: string | undefined, parameter: string, largest?: number): NumberRange | undefined {
  return text === undefined || text.trim() === "" ? undefined : parseRange(text, parameter, largest);
}

function codes(
  text: string | undefined,
  parameter: string,
  allowed?: readonly string[],
): string[] | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const items = [...new Set(text.split(",").map((item) => item.trim()))].filter(Boolean);
  if (items.length > 50 || items.some((item) => item.length > 64)) refuse(parameter, "at most 50 codes");
  const unknown = allowed ? items.find((item) => !allowed.includes(item)) : undefined;
  if (unknown !== undefined) refuse(parameter, `${unknown} is none of ${allowed!.join(", ")}`);
  return items;
}

export interface ListParameters {
  app?: string | undefined;
  entry?: number | undefined;
  keyword?: string | undefined;
  fullText?: boolean | undefined;
  timestamps?: string | undefined;
  lastUpdate?: string | undefined;
  orderTimes?: string | undefined;
  milestones?: string | undefined;
  ratings?: string | undefined;
  statuses?: string | undefined;
  states?: string | undefined;
  sep?: boolean | undefined;
  thing?: boolean | undefined;
  unread?: boolean | undefined;
  archive?: boolean | undefined;
  order?: string | undefined;
  start: number;
  limit: number;
}

export function processFilters(parameters: ListParameters): ProcessFilters {
  return {
    app: parameters.app,
    entry: parameters.entry,
    terms: keywordTerms(parameters.keyword),
    fullText: parameters.fullText ?? false,
    timestamps: range(parameters.timestamps, "timestamps"),
    lastUpdate: range(parameters.lastUpdate, "lastUpdate"),
    orderTimes: range(parameters.orderTimes, "orderTimes"),
    milestones: range(parameters.milestones, "milestones", LARGEST_INTEGER),
    ratings: range(parameters.ratings, "ratings", LARGEST_INTEGER),
    statuses: codes(parameters.statuses, "statuses", STATUSES),
    states: codes(parameters.states, "states"),
    sep: parameters.sep,
    thing: parameters.thing,
    unread: parameters.unread,
    archive: parameters.archive ?? false,
    order: parseOrder(parameters.order),
    start: parameters.start,
    limit: parameters.limit,
  };
}
