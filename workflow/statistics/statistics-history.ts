import type { OutboxEvent } from "../outbox/outbox-subscriber.ts";
import type { CountedStatus } from "./statistics-deltas.ts";

/** A process of the tenant's history as its row has it now. */
export interface HistoricProcess {
  id: string;
  tenantId: string;
  test: boolean;
  status: CountedStatus;
  createdAt: Date;
  endedAt: Date | null;
}

/** A to-do handled in a process of the history, as its task row has it now. */
export interface HandledTodo {
  taskId: string;
  processId: string;
  assignedAt: Date;
  handledAt: Date;
}

/**
 * The events that bring the statistics of `process` to its row's state, from the status it is
 * counted with (none: not counted yet). Fed to `statisticsDeltas` with the events the subscriber
 * sees, they are counted by the same rules: a start of a process already counted adds nothing, a
 * change to the status it has adds nothing, an end after an end adds nothing. So whichever of the
 * job and the subscriber gets to a process first counts it, and the other's events add only what
 * the first had not seen. A process not counted yet also brings its handled to-dos: the subscriber
 * counts a to-do only in a counted process, so these were not counted.
 */
export function eventsToNow(
  process: HistoricProcess,
  counted: CountedStatus | undefined,
  todos: readonly HandledTodo[],
): OutboxEvent[] {
  const event = (
    type: string,
    createdAt: Date,
    payload: Record<string, unknown> = {},
    taskId: string | null = null,
  ): OutboxEvent => ({
    id: "",
    position: 0,
    tenantId: process.tenantId,
    test: process.test,
    processId: process.id,
    type,
    taskId,
    users: [],
    payload,
    createdAt,
  });
  const events = counted
    ? []
    : [
        event("process.started", process.createdAt),
        ...todos.map((todo) => event("todo.done", todo.handledAt, {}, todo.taskId)),
      ];
  const from = counted ?? "doing";
  if (process.status === "suspended" && from === "doing")
    events.push(event("process.suspended", process.createdAt));
  if (process.status === "doing" && from === "suspended")
    events.push(event("process.resumed", process.createdAt));
  if ((process.status === "done" || process.status === "killed") && process.endedAt) {
    events.push(event("process.ended", process.endedAt, { status: process.status }));
  }
  return events;
}
