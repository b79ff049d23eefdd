import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { missingSystemPackages, type SystemRequirement } from "../support/system-requirements.ts";

const absent = (debianPackage: string): SystemRequirement => ({
  what: `the program of ${debianPackage}`,
  debianPackage,
  present: () => false,
});
const present: SystemRequirement = { what: "sh", debianPackage: "dash", present: () => true };

/** Runs `check` with CI set to `value` (or unset), as the suite would see it. */
function withCi(value: string | undefined, check: () => void): void {
  const before = process.env.CI;
  if (value === undefined) delete process.env.CI;
  else process.env.CI = value;
  try {
    check();
  } finally {
    if (before === undefined) delete process.env.CI;
    else process.env.CI = before;
  }
}

describe("a test's system packages", () => {
  it("outside CI, a missing one skips with one line naming it and the command that installs it", () =>
    withCi(undefined, () => {
      assert.equal(missingSystemPackages(present), false);
      assert.equal(
        missingSystemPackages(present, absent("poppler-utils"), absent("python3-uno")),
        "needs the program of poppler-utils and the program of python3-uno: apt-get install poppler-utils python3-uno",
      );
    }));

  it("under CI=true, a missing one fails instead of skipping", () =>
    withCi("true", () => {
      assert.throws(
        () => missingSystemPackages(absent("chromium")),
        /^Error: CI needs the program of chromium: apt-get install chromium$/,
      );
      assert.equal(missingSystemPackages(present), false);
    }));
});
