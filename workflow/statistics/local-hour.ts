const minuteFormats = new Map<string, Intl.DateTimeFormat>();

const HOUR_MS = 3_600_000;

/**
 * The start of the hour of `timeZone` that `time` falls in. Not the UTC hour: a zone half an hour
 * or 45 minutes off UTC (Asia/Kolkata, Asia/Kathmandu) starts its hours, and so its days, within a
 * UTC hour, and a tenant's days must be sums of whole buckets.
 */
export function localHourStart(time: Date, timeZone: string): Date {
  let format = minuteFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, minute: "numeric" });
    minuteFormats.set(timeZone, format);
  }
  const minute = Number(format.formatToParts(time).find((part) => part.type === "minute")!.value);
  const ms = time.getTime();
  const withinMinute = ((ms % 60_000) + 60_000) % 60_000;
  return new Date(ms - withinMinute - minute * 60_000);
}

/** The start of the next local hour after the one starting at `hour` (zones change offset on the hour). */
export function nextHour(hour: Date): Date {
  return new Date(hour.getTime() + HOUR_MS);
}
