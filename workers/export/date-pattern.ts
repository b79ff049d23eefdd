/**
 * Spec 001's `${field:pattern}` date patterns: the letters of the common date-time pattern
 * language (yyyy, yy, MM, M, dd, d, HH, H, hh, h, mm, m, ss, s, SSS, a), anything else copied,
 * and text in single quotes copied as is (`''` is a quote).
 */
const TOKEN = /'([^']|'')*'|y+|M+|d+|H+|h+|m+|s+|S+|a/g;

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function partsIn(date: Date, timeZone: string): DateParts {
  let format = partsFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    partsFormats.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(date)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
    millisecond: date.getUTCMilliseconds(),
  };
}

const pad = (value: number, width: number) => String(value).padStart(width, "0");

function token(text: string, parts: DateParts): string {
  const width = text.length;
  switch (text[0]) {
    case "'":
      return text.slice(1, -1).replaceAll("''", "'");
    case "y":
      return width === 2 ? pad(parts.year % 100, 2) : pad(parts.year, width);
    case "M":
      return pad(parts.month, width);
    case "d":
      return pad(parts.day, width);
    case "H":
      return pad(parts.hour, width);
    case "h":
      return pad(parts.hour % 12 || 12, width);
    case "m":
      return pad(parts.minute, width);
    case "s":
      return pad(parts.second, width);
    case "S":
      return pad(parts.millisecond, 3).slice(0, width).padEnd(width, "0");
    default:
      return parts.hour < 12 ? "AM" : "PM";
  }
}

/** The instant at which the wall-clock time given in UTC fields reads so in `timeZone`. */
function wallClockToInstant(wallClockAsUtc: number, timeZone: string): Date {
  const shown = partsIn(new Date(wallClockAsUtc), timeZone);
  const offset =
    Date.UTC(shown.year, shown.month - 1, shown.day, shown.hour, shown.minute, shown.second) -
    (wallClockAsUtc - (wallClockAsUtc % 1000));
  return new Date(wallClockAsUtc - offset);
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A date datum as a Date: Unix seconds, as spec 001 writes every time, or an ISO 8601 date or
 * date-time; one without a zone offset is a wall-clock time in the export's time zone. Anything
 * else (a number past any date included) is not a date.
 */
export function toDate(value: unknown, timeZone: string): Date | undefined {
  if (typeof value === "number") {
    const date = new Date(value * 1000);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  if (typeof value !== "string") return undefined;
  const match = ISO_DATE_TIME.exec(value.trim());
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, millisecond, zone] = match;
  const fields = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour ?? 0),
    Number(minute ?? 0),
    Number(second ?? 0),
    Number((millisecond ?? "0").padEnd(3, "0")),
  );
  if (Number.isNaN(fields)) return undefined;
  if (zone === undefined) return wallClockToInstant(fields, timeZone);
  if (zone === "Z") return new Date(fields);
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return new Date(fields - sign * offsetMinutes * 60_000);
}

/**
 * The wall-clock time `date` reads in `timeZone`, as a Date whose UTC fields hold it: what a
 * spreadsheet cell, which knows no time zones, is given.
 */
export function wallClockDate(date: Date, timeZone: string): Date {
  const parts = partsIn(date, timeZone);
  return new Date(
    Date.UTC(
      parts.year,
      parts.month - 1,
      parts.day,
      parts.hour,
      parts.minute,
      parts.second,
      parts.millisecond,
    ),
  );
}

export function formatDate(date: Date, pattern: string, timeZone: string): string {
  const parts = partsIn(date, timeZone);
  return pattern.replace(TOKEN, (text) => token(text, parts));
}
