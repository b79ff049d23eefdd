import type { z } from "zod";
import {
  workflowNotifySchema,
  workflowReminderSchema,
  workflowStatisticsSchema,
} from "../contracts/bootstrap.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { tenantSettings, writeTenantSetting } from "../identity/tenants.ts";
import type { Queryable } from "../runtime/database.ts";

/**
 * The settings a tenant may have, by name: each is a part of the tenant's settings document (the
 * bootstrap file's tenant `workflow` holds the same), read whole by the one feature it configures.
 */
export const SETTINGS = {
  "workflow.reminder": { path: ["workflow", "reminder"], schema: workflowReminderSchema },
  "workflow.notify": { path: ["workflow", "notify"], schema: workflowNotifySchema },
  "workflow.statistics": { path: ["workflow", "statistics"], schema: workflowStatisticsSchema },
} as const satisfies Record<string, { path: readonly [string, string]; schema: z.ZodType }>;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** A setting as 9.1 and 9.5 show it: its name (also its id and code) and its value without secrets. */
export interface SettingView {
  id: string;
  name: string;
  code: string;
  value: unknown;
}

/** Keys whose values are never shown to an application, whatever setting holds them. */
const SECRET_KEY = /secret|password|token|credential|private/i;

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, inner]) => [key, withoutSecrets(inner)]),
  );
}

function valueAt(settings: Record<string, unknown>, [group, name]: readonly [string, string]): unknown {
  const part = settings[group];
  return part && typeof part === "object" ? (part as Record<string, unknown>)[name] : undefined;
}

/** The settings the tenant has, in the catalogue's order, as applications see them. */
export async function settingViews(sql: Queryable, tenantId: string): Promise<SettingView[]> {
  const settings = ((await tenantSettings(sql, tenantId)) ?? {}) as Record<string, unknown>;
  const views: SettingView[] = [];
  for (const name of SETTING_NAMES) {
    const value = valueAt(settings, SETTINGS[name].path);
    if (value !== undefined && value !== null)
      views.push({ id: name, name, code: name, value: withoutSecrets(value) });
  }
  return views;
}

/** 9.1's setting by name, or a refusal. */
export async function settingView(sql: Queryable, tenantId: string, name: string): Promise<SettingView> {
  const found = (await settingViews(sql, tenantId)).find((view) => view.name === name);
  if (!found) throw new WorkflowRefusal("SETTING_NOT_FOUND", `the tenant has no setting ${name}`);
  return found;
}

/**
 * Sets (or, with null, removes) one setting of the tenant, its value already checked against the
 * setting's schema; false when there is no such tenant.
 */
export async function putSetting(
  sql: Queryable,
  tenantId: string,
  name: SettingName,
  value: unknown,
): Promise<boolean> {
  return writeTenantSetting(sql, tenantId, SETTINGS[name].path, value);
}
