import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";

describe("time-ordered ids", () => {
  it("are RFC 9562 version 7 UUIDs that sort by creation time", async () => {
    const first = timeOrderedId();
    await new Promise((resolve) => setTimeout(resolve, 3));
    const later = timeOrderedId();
    for (const id of [first, later]) {
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    assert.ok(first < later, `${first} sorts before ${later}`);
    const millis = Number.parseInt(later.replace(/-/g, "").slice(0, 12), 16);
    assert.ok(Math.abs(millis - Date.now()) < 1000, "the leading 48 bits are the Unix time in ms");
    assert.notEqual(timeOrderedId(), timeOrderedId());
  });
});
