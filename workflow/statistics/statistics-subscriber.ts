import { tenantsCountingStatistics } from "../../identity/tenants.ts";
import type { OutboxSubscriber } from "../outbox/outbox-subscriber.ts";
import { COUNTED_EVENTS, statisticsDeltas } from "./statistics-deltas.ts";
import {
  addToHours,
  appsOfProcesses,
  countedProcesses,
  saveCountedProcesses,
  takeTurnCounting,
  todoTimes,
} from "./statistics-store.ts";

/**
 * Keeps the statistics of the tenants that switched them on: a batch of events becomes a handful
 * of statements (the settings, the facts it needs, one write of processes, one of hourly sums),
 * whatever its size, written in the relay's transaction with the cursor's move.
 */
export const workflowStatisticsSubscriber: OutboxSubscriber = {
  name: "workflow.statistics",
  async accept(events, tx) {
    const asked = events.filter((event) => COUNTED_EVENTS.has(event.type));
    if (asked.length === 0) return undefined;
    const timeZones = await tenantsCountingStatistics(tx, [...new Set(asked.map((event) => event.tenantId))]);
    const counted = asked.filter((event) => timeZones.has(event.tenantId));
    if (counted.length === 0) return undefined;
    await takeTurnCounting(tx);
    const processIds = [...new Set(counted.map((event) => event.processId))];
    const started = counted
      .filter((event) => event.type === "process.started")
      .map((event) => event.processId);
    const handled = counted.flatMap((event) =>
      event.type === "todo.done" && event.taskId ? [event.taskId] : [],
    );
    const [known, appOfProcess, times] = await Promise.all([
      countedProcesses(tx, processIds),
      appsOfProcesses(tx, [...new Set(started)]),
      todoTimes(tx, [...new Set(handled)]),
    ]);
    const { processes, hours } = statisticsDeltas(counted, {
      counted: known,
      appOfProcess,
      todoTimes: times,
      timeZones,
    });
    await saveCountedProcesses(tx, processes);
    await addToHours(tx, hours, timeZones);
    return undefined;
  },
};
