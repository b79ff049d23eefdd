import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDate, toDate } from "../../workers/export/date-pattern.ts";

/** A datum as `${field:pattern}` shows it, or undefined when it is not a date. */
function shown(value: unknown, pattern: string, timeZone: string): string | undefined {
  const date = toDate(value, timeZone);
  return date && formatDate(date, pattern, timeZone);
}

describe("date patterns", () => {
  it("reads a number as Unix seconds, spec 001's times", () => {
    // 1710504000 is 2024-03-15 12:00 UTC.
    assert.equal(shown(1710504000, "yyyy-MM-dd", "Asia/Shanghai"), "2024-03-15");
    assert.equal(shown(1710504000, "yyyy-MM-dd HH:mm:ss", "Asia/Shanghai"), "2024-03-15 20:00:00");
    assert.equal(shown(1710504000, "yyyy-MM-dd HH:mm", "America/Los_Angeles"), "2024-03-15 05:00");
    assert.equal(shown(1710504000, "yyyy-MM-dd HH:mm", "UTC"), "2024-03-15 12:00");
    assert.equal(shown(1710504000.25, "ss.SSS", "UTC"), "00.250");
    assert.equal(shown(0, "yyyy-MM-dd HH:mm", "UTC"), "1970-01-01 00:00");
    assert.equal(shown(-86_400, "yyyy-MM-dd", "UTC"), "1969-12-31");
  });

  it("still reads ISO 8601 strings, one without an offset in the export's time zone", () => {
    assert.equal(shown("2024-03-15", "yyyy-MM-dd HH:mm", "Asia/Shanghai"), "2024-03-15 00:00");
    assert.equal(shown("2024-03-15T12:00:00Z", "yyyy-MM-dd HH:mm", "Asia/Shanghai"), "2024-03-15 20:00");
    assert.equal(shown("2024-03-15T12:00:00+08:00", "HH:mm", "UTC"), "04:00");
    assert.equal(
      shown("2024-03-15 09:30", "yyyy年M月d日 hh:mm a", "Asia/Shanghai"),
      "2024年3月15日 09:30 AM",
    );
  });

  it("takes nothing else for a date", () => {
    for (const value of ["soon", "1710504000", Number.NaN, Number.POSITIVE_INFINITY, 1e300, null, true, {}]) {
      assert.equal(toDate(value, "UTC"), undefined, String(value));
    }
  });
});
