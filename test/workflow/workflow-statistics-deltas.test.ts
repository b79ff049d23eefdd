import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OutboxEvent } from "../../workflow/outbox/outbox-subscriber.ts";
import { localHourStart } from "../../workflow/statistics/local-hour.ts";
import { type CountedProcess, statisticsDeltas } from "../../workflow/statistics/statistics-deltas.ts";

/**
 * The fold of a batch of events into counted processes and hourly sums, without a database: each
 * process counts once, moves between statuses once per change, and ends once.
 */

const TENANT = "00000000-0000-4000-8000-000000000001";
const APP = "00000000-0000-4000-8000-0000000000aa";
let position = 0;

function event(
  type: string,
  processId: string,
  iso: string,
  payload: Record<string, unknown> = {},
): OutboxEvent {
  position++;
  return {
    id: String(position),
    position,
    tenantId: TENANT,
    test: false,
    processId,
    type,
    taskId: null,
    users: [],
    payload: { type, ...payload },
    createdAt: new Date(iso),
  };
}

function fold(events: OutboxEvent[], counted = new Map<string, CountedProcess>(), timeZone = "UTC") {
  const processes = new Set(events.map((e) => e.processId));
  return statisticsDeltas(events, {
    counted,
    appOfProcess: new Map([...processes].map((id) => [id, APP])),
    todoTimes: new Map(),
    timeZones: new Map([[TENANT, timeZone]]),
  });
}

const sums = (hours: ReturnType<typeof fold>["hours"]) =>
  hours.map(({ hour, started, running, suspended, endedDone, endedKilled, completed, killed }) => ({
    hour: hour.toISOString(),
    started,
    running,
    suspended,
    endedDone,
    endedKilled,
    completed,
    killed,
  }));

const NONE = { started: 0, running: 0, suspended: 0, endedDone: 0, endedKilled: 0, completed: 0, killed: 0 };

describe("statistics of a batch of events", () => {
  it("counts a start offered twice once, and an end after an end not at all", () => {
    const counted = new Map<string, CountedProcess>();
    const first = fold(
      [
        event("process.started", "p1", "2026-03-29T10:15:00Z"),
        event("process.started", "p1", "2026-03-29T10:15:00Z"),
      ],
      counted,
    );
    assert.deepEqual(sums(first.hours), [
      { ...NONE, hour: "2026-03-29T10:00:00.000Z", started: 1, running: 1 },
    ]);
    // A later batch: the process is read back as counted.
    const later = fold(
      [
        event("process.started", "p1", "2026-03-29T10:15:00Z"),
        event("process.suspended", "p1", "2026-03-29T11:00:00Z"),
        event("process.suspended", "p1", "2026-03-29T11:01:00Z"),
        event("process.resumed", "p1", "2026-03-29T11:30:00Z"),
        event("process.ended", "p1", "2026-03-29T12:10:00Z", { status: "killed" }),
        event("process.ended", "p1", "2026-03-29T12:20:00Z", { status: "done" }),
      ],
      counted,
    );
    assert.deepEqual(sums(later.hours), [
      { ...NONE, hour: "2026-03-29T10:00:00.000Z", running: -1, endedKilled: 1 },
      { ...NONE, hour: "2026-03-29T12:00:00.000Z", killed: 1 },
    ]);
    assert.equal(counted.get("p1")!.status, "killed");
  });

  it("leaves out the changes of processes it never counted, and tenants with statistics off", () => {
    const { processes, hours } = fold([
      event("process.ended", "p9", "2026-03-29T12:10:00Z", { status: "done" }),
    ]);
    assert.deepEqual([processes, hours], [[], []]);
    const off = statisticsDeltas([event("process.started", "p8", "2026-03-29T12:10:00Z")], {
      counted: new Map(),
      appOfProcess: new Map([["p8", APP]]),
      todoTimes: new Map(),
      timeZones: new Map(),
    });
    assert.deepEqual([off.processes, off.hours], [[], []]);
  });

  it("counts a handled to-do with its process only, and not one the history counted", () => {
    const todo = (processId: string, taskId: string, iso: string) => ({
      ...event("todo.done", processId, iso),
      taskId,
    });
    const counted = new Map<string, CountedProcess>();
    fold([event("process.started", "p1", "2026-03-29T08:00:00Z")], counted);
    counted.get("p1")!.historyTodos = ["t-history"];
    const { hours } = statisticsDeltas(
      [
        todo("p1", "t-waited", "2026-03-29T10:15:00Z"),
        todo("p1", "t-history", "2026-03-29T10:20:00Z"),
        todo("p-uncounted", "t-elsewhere", "2026-03-29T10:25:00Z"),
      ],
      {
        counted,
        appOfProcess: new Map(),
        // The wait by the task row's clock when it has the handling; the bucket by the event's time.
        todoTimes: new Map(
          ["t-waited", "t-history", "t-elsewhere"].map((id) => [
            id,
            { assignedAt: new Date("2026-03-29T09:00:00Z"), handledAt: new Date("2026-03-29T10:14:59Z") },
          ]),
        ),
        timeZones: new Map([[TENANT, "UTC"]]),
      },
    );
    assert.deepEqual(
      hours.map(({ hour, todoHandled, todoWaitSeconds }) => [
        hour.toISOString(),
        todoHandled,
        todoWaitSeconds,
      ]),
      [["2026-03-29T10:00:00.000Z", 1, 4499]],
    );
  });

  it("buckets by the tenant's local hours, which start within a UTC hour in some zones", () => {
    assert.equal(
      localHourStart(new Date("2026-03-29T10:15:00Z"), "Asia/Kolkata").toISOString(),
      "2026-03-29T09:30:00.000Z",
    );
    assert.equal(
      localHourStart(new Date("2026-03-29T10:15:00Z"), "Asia/Kathmandu").toISOString(),
      "2026-03-29T10:15:00.000Z",
    );
    assert.equal(
      localHourStart(new Date("2026-10-25T01:59:59.500Z"), "Europe/Paris").toISOString(),
      "2026-10-25T01:00:00.000Z",
    );
  });
});
