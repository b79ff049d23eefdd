import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConsoleSessions, csrfMatches } from "../../gateway/console/sessions.ts";

describe("console sessions", () => {
  it("gives each sign-in an opaque id and a CSRF token of its own", () => {
    const sessions = new ConsoleSessions();
    const first = sessions.open();
    const second = sessions.open();
    assert.match(first.id, /^[\w-]{43}$/);
    assert.notEqual(first.id, second.id);
    assert.notEqual(first.session.csrf, second.session.csrf);
    assert.equal(sessions.find(first.id), first.session);
    assert.equal(sessions.find("not-a-session"), undefined);
    assert.equal(sessions.find(undefined), undefined);
    assert.ok(csrfMatches(first.session, first.session.csrf));
    assert.ok(!csrfMatches(first.session, second.session.csrf));
    assert.ok(!csrfMatches(first.session, undefined));
    assert.ok(!csrfMatches(first.session, ""));
  });

  it("ends a session left idle, and keeps one in use alive", () => {
    let now = 0;
    const sessions = new ConsoleSessions(1000, () => now);
    const idle = sessions.open();
    const busy = sessions.open();
    now = 900;
    assert.ok(sessions.find(busy.id));
    now = 1500;
    assert.equal(sessions.find(idle.id), undefined, "idle past its time");
    assert.ok(sessions.find(busy.id), "used at 900, good until 1900");
    now = 3000;
    assert.equal(sessions.find(busy.id), undefined);
    assert.equal(sessions.size, 0);
  });

  it("ends a session signed out", () => {
    const sessions = new ConsoleSessions();
    const { id } = sessions.open();
    sessions.close(id);
    assert.equal(sessions.find(id), undefined);
  });

  it("holds a bounded number of sessions, forgetting the one idle longest", () => {
    let now = 0;
    const sessions = new ConsoleSessions(10_000_000, () => now);
    const oldest = sessions.open();
    const opened = [oldest];
    for (let i = 1; i < 1000; i++) {
      now++;
      opened.push(sessions.open());
    }
    now++;
    assert.ok(sessions.find(opened[1]!.id), "used again: no longer the one idle longest");
    sessions.open();
    assert.equal(sessions.size, 1000);
    assert.equal(sessions.find(oldest.id), undefined);
    assert.ok(sessions.find(opened[1]!.id));
  });
});
