import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { tenantStatistics } from "../../identity/tenants.ts";
import type { Queryable } from "../../runtime/database.ts";
import { permittedApps } from "../access-grant-store.ts";
import { permissionsGranting } from "../app-access.ts";
import { ownAppId, visibleApp } from "../own-workflow.ts";
import type { WorkflowCaller } from "../workflow-caller.ts";
import { localHourStart, nextHour } from "./local-hour.ts";
import type { StatisticsCache } from "./statistics-cache.ts";
import {
  type PeriodCounts,
  periodCounts,
  type StatsCycle,
  type StatsScope,
  type StatusCounts,
  statsApps,
  statusCounts,
} from "./statistics-query-store.ts";

/** Spec 001 8.3's default number of periods of each cycle. */
export const DEFAULT_PERIODS: Record<StatsCycle, number> = { hour: 24, day: 7, week: 52, month: 3, year: 5 };

/**
 * The apps the caller's question is about (`*`: every app it sees): a sys token sees its tenant (a
 * Workflow application's, its workflow); a user token the apps the user administers or views.
 */
async function scopeOf(sql: Queryable, caller: WorkflowCaller, id: string): Promise<StatsScope> {
  const base = { tenantId: caller.tenantId, test: caller.test };
  const viewed = caller.sys
    ? undefined
    : await permittedApps(sql, caller.tenantId, caller.test, caller.userId!, permissionsGranting("guest"));
  if (id === "*") {
    const own = await ownAppId(sql, caller);
    if (own) return { ...base, apps: viewed && !viewed.includes(own) ? [] : [own] };
    return { ...base, apps: viewed ?? "all" };
  }
  const app = await visibleApp(sql, caller, id);
  if (viewed && !viewed.includes(app.id)) {
    throw new WorkflowRefusal("NOT_AN_ADMINISTRATOR", `you neither administer nor view workflow ${id}`);
  }
  return { ...base, apps: [app.id] };
}

/** What answering takes: the database, and this gateway's answers of the last 2 minutes. */
export interface StatisticsDeps {
  sql: Queryable;
  cache: StatisticsCache;
}

/**
 * The answer to a question about `scope`, counted or as counted within the last 2 minutes. The
 * key is what the answer depends on: the apps the caller may see (checked at every question, so a
 * permission withdrawn takes effect at once) and the question as asked, "now" unresolved.
 */
function cached<T>(
  deps: StatisticsDeps,
  scope: StatsScope,
  question: readonly unknown[],
  count: () => Promise<T>,
): Promise<T> {
  const apps = scope.apps === "all" ? "all" : [...scope.apps].sort();
  return deps.cache.answer(JSON.stringify([scope.tenantId, scope.test, apps, ...question]), count);
}

/** One of 8.1's groups: the apps whose main tag (the first of `tags`) is `tag`. */
export interface StatsAppGroup {
  tag: string;
  count: number;
  apps: {
    id: string;
    name: string;
    code: string;
    tags: string;
    processCount: number;
    creationDate: number;
    release: number | null;
  }[];
}

const unixSeconds = (time: Date) => Math.floor(time.getTime() / 1000);

/** 8.1: the apps the caller sees, grouped by main tag, with the processes started of each. */
export async function statsAppGroups(deps: StatisticsDeps, caller: WorkflowCaller): Promise<StatsAppGroup[]> {
  const scope = await scopeOf(deps.sql, caller, "*");
  return cached(deps, scope, ["8.1"], () => appGroups(deps.sql, scope));
}

async function appGroups(sql: Queryable, scope: StatsScope): Promise<StatsAppGroup[]> {
  const setting = await tenantStatistics(sql, scope.tenantId);
  const groups = new Map<string, StatsAppGroup>();
  for (const app of await statsApps(sql, scope, setting.on)) {
    const tag = app.tags.split(",")[0]!.trim();
    let group = groups.get(tag);
    if (!group) {
      group = { tag, count: 0, apps: [] };
      groups.set(tag, group);
    }
    group.count++;
    group.apps.push({
      id: app.id,
      name: app.name,
      code: app.code,
      tags: app.tags,
      processCount: app.processCount,
      creationDate: unixSeconds(app.createdAt),
      release: app.release ? unixSeconds(app.release) : null,
    });
  }
  return [...groups.values()].sort((a, b) => a.tag.localeCompare(b.tag));
}

/** 8.2: the processes started in `[start, finish]` (Unix seconds), by their status now. */
export async function processStatus(
  deps: StatisticsDeps,
  caller: WorkflowCaller,
  id: string,
  range: { start: number; finish?: number | undefined },
): Promise<StatusCounts> {
  const scope = await scopeOf(deps.sql, caller, id);
  return cached(deps, scope, ["8.2", range.start, range.finish], () => statusOf(deps.sql, scope, range));
}

async function statusOf(
  sql: Queryable,
  scope: StatsScope,
  range: { start: number; finish?: number | undefined },
): Promise<StatusCounts> {
  const setting = await tenantStatistics(sql, scope.tenantId);
  if (!setting.on) return { running: 0, suspend: 0, killed: 0, completed: 0 };
  const from = new Date(range.start * 1000);
  const finish = range.finish ?? Math.floor(Date.now() / 1000);
  // A start time counts as its whole second, as spec 001 writes it.
  const to = new Date((finish + 1) * 1000);
  const fromHour = localHourStart(from, setting.timeZone);
  let firstHour = fromHour.getTime() === from.getTime() ? from : nextHour(fromHour);
  let lastHour = localHourStart(to, setting.timeZone);
  if (firstHour >= lastHour) {
    firstHour = to;
    lastHour = to;
  }
  return statusCounts(sql, scope, { from, to, firstHour, lastHour, timeZone: setting.timeZone });
}

/** 8.3's and 8.4's periods, with the sums of both (one count, and one cached answer, serves both). */
async function periods(
  deps: StatisticsDeps,
  caller: WorkflowCaller,
  id: string,
  question: { cycle: StatsCycle; finish?: number | undefined },
): Promise<PeriodCounts[]> {
  const scope = await scopeOf(deps.sql, caller, id);
  return cached(deps, scope, ["8.3", question.cycle, question.finish], () =>
    periodsOf(deps.sql, scope, question),
  );
}

async function periodsOf(
  sql: Queryable,
  scope: StatsScope,
  question: { cycle: StatsCycle; finish?: number | undefined },
): Promise<PeriodCounts[]> {
  const setting = await tenantStatistics(sql, scope.tenantId);
  const at = question.finish === undefined ? new Date() : new Date(question.finish * 1000);
  return periodCounts(sql, scope, {
    cycle: question.cycle,
    count: DEFAULT_PERIODS[question.cycle],
    at,
    lastHour: localHourStart(at, setting.timeZone),
    timeZone: setting.timeZone,
    counting: setting.on,
  });
}

/** 8.3: by period start (Unix seconds), the processes started, completed and killed in it. */
export async function recentProcesses(
  deps: StatisticsDeps,
  caller: WorkflowCaller,
  id: string,
  question: { cycle: StatsCycle; finish?: number | undefined },
): Promise<Record<string, { started: number; completed: number; killed: number }>> {
  const found = await periods(deps, caller, id, question);
  return Object.fromEntries(
    found.map((period) => [
      String(period.time),
      { started: period.started, completed: period.completed, killed: period.killed },
    ]),
  );
}

/**
 * 8.4: by period start (Unix seconds), the mean wait in whole seconds of the to-dos handled in it,
 * from the task's becoming a to-do to its handling; 0 when none was handled.
 */
export async function todoWaiting(
  deps: StatisticsDeps,
  caller: WorkflowCaller,
  id: string,
  question: { cycle: StatsCycle; finish?: number | undefined },
): Promise<Record<string, number>> {
  const found = await periods(deps, caller, id, question);
  return Object.fromEntries(
    found.map((period) => [
      String(period.time),
      period.todoHandled === 0 ? 0 : Math.round(period.todoWaitSeconds / period.todoHandled),
    ]),
  );
}
