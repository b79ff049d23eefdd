import { tenantStatistics } from "../../identity/tenants.ts";
import { type Sql, transaction } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { runPeriodically } from "../../runtime/periodic-task.ts";
import { statisticsDeltas } from "./statistics-deltas.ts";
import { eventsToNow, type HandledTodo } from "./statistics-history.ts";
import {
  advanceHistory,
  handledTodos,
  historyBatch,
  takeHistory,
  tenantAwaitingHistory,
  todosAwaitingSubscriber,
} from "./statistics-history-store.ts";
import {
  addToHours,
  appsOfProcesses,
  countedProcesses,
  saveCountedProcesses,
  takeTurnCounting,
} from "./statistics-store.ts";
import { workflowStatisticsSubscriber } from "./statistics-subscriber.ts";

const BATCH = 500;
/** Batches one tick runs at most, so a long history leaves room between ticks for stopping. */
const BATCHES_PER_TICK = 200;

/**
 * Counts one batch of the history of a tenant awaiting it, in one transaction with its place and
 * progress: a crash loses the batch's writes and its move together, and the next run takes it
 * again. Answers the tenant, or undefined when none awaits or another process holds it.
 */
export async function countHistoryBatch(
  sql: Sql,
  batchSize = BATCH,
): Promise<{ tenantId: string; finished: boolean } | undefined> {
  const tenantId = await tenantAwaitingHistory(sql);
  if (!tenantId) return undefined;
  return transaction(sql, async (tx) => {
    const taken = await takeHistory(tx, tenantId);
    if (!taken) return undefined;
    const setting = await tenantStatistics(tx, tenantId);
    // Switched off before its history was counted: nothing is kept while off, and switching on
    // again asks for the history anew.
    if (!setting.on) {
      await advanceHistory(tx, tenantId, {
        afterEntry: taken.afterEntry,
        examined: 0,
        counted: 0,
        finished: true,
      });
      return { tenantId, finished: true };
    }
    await takeTurnCounting(tx);
    const rows = await historyBatch(tx, tenantId, taken.afterEntry, batchSize);
    const known = await countedProcesses(
      tx,
      rows.map((row) => row.id),
    );
    const freshIds = rows.filter((row) => !known.has(row.id)).map((row) => row.id);
    const [appOfProcess, todos] = await Promise.all([
      appsOfProcesses(tx, freshIds),
      handledTodos(tx, freshIds),
    ]);
    const awaiting = await todosAwaitingSubscriber(
      tx,
      todos.map((todo) => todo.taskId),
      workflowStatisticsSubscriber.name,
    );
    const todosOf = new Map<string, HandledTodo[]>();
    for (const todo of todos) {
      const ofProcess = todosOf.get(todo.processId);
      if (ofProcess) ofProcess.push(todo);
      else todosOf.set(todo.processId, [todo]);
    }
    const events = rows.flatMap((row) =>
      eventsToNow(row, known.get(row.id)?.status, todosOf.get(row.id) ?? []),
    );
    const timeZones = new Map([[tenantId, setting.timeZone]]);
    const { processes, hours } = statisticsDeltas(events, {
      counted: known,
      appOfProcess,
      todoTimes: new Map(todos.map((todo) => [todo.taskId, todo])),
      timeZones,
    });
    for (const process of processes) {
      process.historyTodos = todosOf
        .get(process.processId)
        ?.filter((todo) => awaiting.has(todo.taskId))
        .map((todo) => todo.taskId);
    }
    await saveCountedProcesses(tx, processes);
    await addToHours(tx, hours, timeZones);
    const finished = rows.length < batchSize;
    await advanceHistory(tx, tenantId, {
      afterEntry: rows.at(-1)?.entry ?? taken.afterEntry,
      examined: rows.length,
      counted: freshIds.length,
      finished,
    });
    return { tenantId, finished };
  });
}

/**
 * Counts the history of the tenants that switched statistics on, checking every `intervalMs`.
 * Several processes may run it: each batch holds its tenant's row, and the others pass it over.
 */
export function startStatisticsHistory(deps: { sql: Sql; log: Logger }, intervalMs = 1000): () => void {
  const tick = async () => {
    for (let batch = 0; batch < BATCHES_PER_TICK; batch++) {
      const done = await countHistoryBatch(deps.sql);
      if (!done) return;
      if (done.finished) deps.log.info({ tenantId: done.tenantId }, "statistics history counted");
    }
  };
  return runPeriodically(tick, intervalMs, deps.log, "statistics history");
}
