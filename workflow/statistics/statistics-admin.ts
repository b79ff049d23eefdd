import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { tenantByDomain, tenantStatistics } from "../../identity/tenants.ts";
import type { Queryable } from "../../runtime/database.ts";
import { localHourStart } from "./local-hour.ts";
import { historyProgress } from "./statistics-history-store.ts";
import { periodCounts } from "./statistics-query-store.ts";
import { DEFAULT_PERIODS } from "./statistics-service.ts";

async function tenantIdOf(sql: Queryable, domain: string): Promise<string> {
  const tenant = await tenantByDomain(sql, domain);
  if (!tenant) throw new PlatformError(ErrorCode.NotFound, `no tenant ${domain}`);
  return tenant.id;
}

/** A tenant's statistics as operators read them: the setting, and the counting of its history. */
export async function statisticsOfTenant(sql: Queryable, domain: string) {
  const tenant = { id: await tenantIdOf(sql, domain) };
  const [setting, progress] = await Promise.all([
    tenantStatistics(sql, tenant.id),
    historyProgress(sql, tenant.id),
  ]);
  const iso = (time: Date | null) => time?.toISOString() ?? null;
  return {
    ...setting,
    history: progress
      ? {
          requestedAt: progress.requestedAt.toISOString(),
          startedAt: iso(progress.startedAt),
          finishedAt: iso(progress.finishedAt),
          total: progress.total,
          examined: progress.examined,
          counted: progress.counted,
        }
      : null,
  };
}

/** 8.3 by day for every app of the tenant in a data mode: the latest days, the last holding `at`. */
export async function tenantDays(sql: Queryable, domain: string, test: boolean, at: Date) {
  const tenantId = await tenantIdOf(sql, domain);
  const setting = await tenantStatistics(sql, tenantId);
  const days = await periodCounts(
    sql,
    { tenantId, test, apps: "all" },
    {
      cycle: "day",
      count: DEFAULT_PERIODS.day,
      at,
      lastHour: localHourStart(at, setting.timeZone),
      timeZone: setting.timeZone,
      counting: setting.on,
    },
  );
  return {
    on: setting.on,
    timeZone: setting.timeZone,
    days: days.map(({ time, started, completed, killed }) => ({ time, started, completed, killed })),
  };
}
