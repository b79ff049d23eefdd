import type { OutboxEvent } from "../outbox/outbox-subscriber.ts";
import { localHourStart } from "./local-hour.ts";

/** A process's status as 8.2 counts it. */
export type CountedStatus = "doing" | "suspended" | "done" | "killed";

/** A process the statistics count: the row that makes each of its events count once. */
export interface CountedProcess {
  processId: string;
  tenantId: string;
  test: boolean;
  appId: string;
  startedAt: Date;
  /** The local hour it started in: the bucket its status is counted in. */
  hour: Date;
  status: CountedStatus;
  /**
   * The to-dos of the process the history counted while their `todo.done` events were still to
   * reach the subscriber, which passes those events over.
   */
  historyTodos?: readonly string[] | null;
}

/** What a batch adds to one hourly bucket. */
export interface HourDelta {
  tenantId: string;
  test: boolean;
  appId: string;
  hour: Date;
  started: number;
  running: number;
  suspended: number;
  endedDone: number;
  endedKilled: number;
  completed: number;
  killed: number;
  todoHandled: number;
  todoWaitSeconds: number;
}

/** A bucket's delta adding nothing yet. */
export function emptyHour(of: Pick<HourDelta, "tenantId" | "test" | "appId" | "hour">): HourDelta {
  return {
    ...of,
    started: 0,
    running: 0,
    suspended: 0,
    endedDone: 0,
    endedKilled: 0,
    completed: 0,
    killed: 0,
    todoHandled: 0,
    todoWaitSeconds: 0,
  };
}

type StatusColumn = "running" | "suspended" | "endedDone" | "endedKilled";

const COLUMN_OF: Record<CountedStatus, StatusColumn> = {
  doing: "running",
  suspended: "suspended",
  done: "endedDone",
  killed: "endedKilled",
};

/** The event types the statistics read. */
export const COUNTED_EVENTS = new Set([
  "process.started",
  "process.suspended",
  "process.resumed",
  "process.ended",
  "todo.done",
]);

/**
 * A to-do's times as its task row has them, both from the clock of the gateway that ran the
 * command; `handledAt` is null once a handling was taken back.
 */
export interface TodoTimes {
  assignedAt: Date;
  handledAt: Date | null;
}

/** What the batch's events need from the database, read once for the whole batch. */
export interface BatchFacts {
  /** The processes already counted, by id; a batch's changes are made to these objects. */
  counted: Map<string, CountedProcess>;
  /** The app of each process the batch starts. */
  appOfProcess: ReadonlyMap<string, string>;
  /** When each to-do the batch handles became one, and when its task row says it was handled. */
  todoTimes: ReadonlyMap<string, TodoTimes>;
  /** The time zone of each tenant whose statistics are on. */
  timeZones: ReadonlyMap<string, string>;
}

/**
 * Folds a batch of events, in order, into the rows of counted processes it adds or changes and the
 * sums it adds to hourly buckets. A start of a process already counted, a change to the status it
 * has, and any change after its end, add nothing: an event offered again counts once. A to-do
 * counts with its process: handled in a process not counted (yet), it is left to the history,
 * which counts the handled to-dos of each process it counts.
 */
export function statisticsDeltas(
  events: readonly OutboxEvent[],
  facts: BatchFacts,
): { processes: CountedProcess[]; hours: HourDelta[] } {
  const changed = new Map<string, CountedProcess>();
  const hours = new Map<string, HourDelta>();
  const bucket = (tenantId: string, test: boolean, appId: string, hour: Date): HourDelta => {
    const key = `${tenantId} ${test} ${appId} ${hour.getTime()}`;
    let delta = hours.get(key);
    if (!delta) {
      delta = emptyHour({ tenantId, test, appId, hour });
      hours.set(key, delta);
    }
    return delta;
  };
  const move = (process: CountedProcess, to: CountedStatus) => {
    const delta = bucket(process.tenantId, process.test, process.appId, process.hour);
    delta[COLUMN_OF[process.status]]--;
    delta[COLUMN_OF[to]]++;
    process.status = to;
    changed.set(process.processId, process);
  };
  for (const event of events) {
    const timeZone = facts.timeZones.get(event.tenantId);
    if (!timeZone) continue;
    const hourOfEvent = () => localHourStart(event.createdAt, timeZone);
    const process = facts.counted.get(event.processId);
    switch (event.type) {
      case "process.started": {
        const appId = facts.appOfProcess.get(event.processId);
        if (process || !appId) break;
        const started: CountedProcess = {
          processId: event.processId,
          tenantId: event.tenantId,
          test: event.test,
          appId,
          startedAt: event.createdAt,
          hour: hourOfEvent(),
          status: "doing",
        };
        facts.counted.set(started.processId, started);
        changed.set(started.processId, started);
        const delta = bucket(started.tenantId, started.test, appId, started.hour);
        delta.started++;
        delta.running++;
        break;
      }
      case "process.suspended":
        if (process?.status === "doing") move(process, "suspended");
        break;
      case "process.resumed":
        if (process?.status === "suspended") move(process, "doing");
        break;
      case "process.ended": {
        if (!process || process.status === "done" || process.status === "killed") break;
        const status = (event.payload as { status?: string }).status === "killed" ? "killed" : "done";
        move(process, status);
        const delta = bucket(process.tenantId, process.test, process.appId, hourOfEvent());
        delta[status === "killed" ? "killed" : "completed"]++;
        break;
      }
      case "todo.done": {
        const times = event.taskId ? facts.todoTimes.get(event.taskId) : undefined;
        if (!process || !times || process.historyTodos?.includes(event.taskId!)) break;
        const delta = bucket(process.tenantId, process.test, process.appId, hourOfEvent());
        delta.todoHandled++;
        // The wait by one clock, the task row's; the event's (the database's) only when the row no
        // longer holds the handling.
        const handledAt = times.handledAt ?? event.createdAt;
        delta.todoWaitSeconds += Math.max(
          0,
          Math.round((handledAt.getTime() - times.assignedAt.getTime()) / 1000),
        );
        break;
      }
    }
  }
  return { processes: [...changed.values()], hours: [...hours.values()] };
}
