import { createHash } from "node:crypto";
import type { WorkflowDefinition } from "../contracts/workflow-definition.ts";
import type { Queryable } from "../runtime/database.ts";
import { CompiledWorkflow } from "./engine/compiled-workflow.ts";

/** A workflow app (spec 001's `app` of type Workflow) as stored. */
export interface WorkflowApp {
  id: string;
  tenantId: string;
  code: string;
  name: string;
  abbreviation: string | null;
  description: string | null;
  tags: string;
  icon: string | null;
  palette: string | null;
  department: string | null;
  contact: string | null;
  recommendation: number;
  visible: boolean;
  ready: boolean;
  createdAt: Date;
}

export interface WorkflowVersion {
  id: string;
  appId: string;
  number: number;
  name: string | null;
  definition: WorkflowDefinition;
  onlineFormal: boolean;
  onlineTest: boolean;
  createdAt: Date;
}

/** The fields of an app an operator sets (bootstrap, admin API) or 4.2 changes. */
export interface WorkflowAppFields {
  code: string;
  name: string;
  abbreviation?: string | undefined;
  description?: string | undefined;
  tags?: string | undefined;
  icon?: string | undefined;
  palette?: string | undefined;
  department?: string | undefined;
  contact?: string | undefined;
  recommendation?: number | undefined;
  visible?: boolean | undefined;
  ready?: boolean | undefined;
}

const APP_COLUMNS = `id, tenant_id as "tenantId", code, name, abbreviation, description, tags, icon, palette,
  department, contact, recommendation, visible, ready, created_at as "createdAt"`;
const VERSION_COLUMNS = `id, app_id as "appId", number, name, definition, online_formal as "onlineFormal",
  online_test as "onlineTest", created_at as "createdAt"`;

/** Creates the app or brings the fields given up to date; fields left out keep their values. */
export async function upsertWorkflowApp(
  sql: Queryable,
  tenantId: string,
  app: WorkflowAppFields,
): Promise<WorkflowApp> {
  const [row] = await sql<WorkflowApp[]>`
    insert into workflow_apps (tenant_id, code, name, abbreviation, description, tags, icon, palette, department,
                               contact, recommendation, visible, ready)
    values (${tenantId}, ${app.code}, ${app.name}, ${app.abbreviation ?? null}, ${app.description ?? null},
            ${app.tags ?? ""}, ${app.icon ?? null}, ${app.palette ?? null}, ${app.department ?? null},
            ${app.contact ?? null}, ${app.recommendation ?? 0}, ${app.visible ?? true}, ${app.ready ?? true})
    on conflict (tenant_id, code) do update set
      name = excluded.name,
      abbreviation = coalesce(${app.abbreviation ?? null}, workflow_apps.abbreviation),
      description = coalesce(${app.description ?? null}, workflow_apps.description),
      tags = coalesce(${app.tags ?? null}, workflow_apps.tags),
      icon = coalesce(${app.icon ?? null}, workflow_apps.icon),
      palette = coalesce(${app.palette ?? null}, workflow_apps.palette),
      department = coalesce(${app.department ?? null}, workflow_apps.department),
      contact = coalesce(${app.contact ?? null}, workflow_apps.contact),
      recommendation = coalesce(${app.recommendation ?? null}::integer, workflow_apps.recommendation),
      visible = coalesce(${app.visible ?? null}::boolean, workflow_apps.visible),
      ready = coalesce(${app.ready ?? null}::boolean, workflow_apps.ready),
      updated_at = now()
    returning ${sql.unsafe(APP_COLUMNS)}`;
  return row!;
}

export function definitionDigest(definition: WorkflowDefinition): string {
  return createHash("sha256").update(JSON.stringify(definition)).digest("hex");
}

/**
 * Deploys a definition as the app's next version, or answers the version that already holds the
 * same definition. A deployed version never changes.
 */
export async function deployVersion(
  sql: Queryable,
  appId: string,
  definition: WorkflowDefinition,
  name?: string,
): Promise<{ version: WorkflowVersion; created: boolean }> {
  const digest = definitionDigest(definition);
  // The digest depends on the order of keys, which jsonb does not keep: a definition read back from
  // the database (an exported bootstrap document) is the same version when its content is equal.
  const [created] = await sql<WorkflowVersion[]>`
    insert into workflow_versions (app_id, number, name, definition, digest)
    select ${appId}, coalesce(max(number), 0) + 1, ${name ?? null}, ${sql.json(definition as never)}, ${digest}
    from workflow_versions where app_id = ${appId}
    having not coalesce(bool_or(definition = ${sql.json(definition as never)}), false)
    on conflict (app_id, digest) do nothing
    returning ${sql.unsafe(VERSION_COLUMNS)}`;
  if (created) return { version: created, created: true };
  const [existing] = await sql<WorkflowVersion[]>`
    select ${sql.unsafe(VERSION_COLUMNS)} from workflow_versions
    where app_id = ${appId} and (digest = ${digest} or definition = ${sql.json(definition as never)})
    order by number limit 1`;
  return { version: existing!, created: false };
}

/** 1.3-1.5's `TenantApps`: the ids of the apps of the user's tenant shown to users, most recommended first. */
export async function tenantAppIds(sql: Queryable, userId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select a.id from workflow_apps a join users u on u.tenant_id = a.tenant_id
    where u.id = ${userId} and a.visible and a.ready
    order by a.recommendation desc, a.name, a.id
    limit 1000`;
  return rows.map((row) => row.id);
}

const isAppId = (idc: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idc);

/** An app of the tenant by id or code. */
export async function workflowAppByIdOrCode(
  sql: Queryable,
  tenantId: string,
  idc: string,
): Promise<WorkflowApp | undefined> {
  const [row] = await sql<WorkflowApp[]>`
    select ${sql.unsafe(APP_COLUMNS)} from workflow_apps
    where tenant_id = ${tenantId} and ${isAppId(idc) ? sql`id = ${idc}` : sql`code = ${idc}`}`;
  return row;
}

export async function workflowAppById(sql: Queryable, id: string): Promise<WorkflowApp | undefined> {
  const [row] = await sql<
    WorkflowApp[]
  >`select ${sql.unsafe(APP_COLUMNS)} from workflow_apps where id = ${id}`;
  return row;
}

/** The app's versions, newest first. */
export async function versionsOf(sql: Queryable, appId: string): Promise<WorkflowVersion[]> {
  return sql<WorkflowVersion[]>`
    select ${sql.unsafe(VERSION_COLUMNS)} from workflow_versions where app_id = ${appId} order by number desc`;
}

/** An app with the version a start of the data mode uses, if one is online. */
export type StartableApp = WorkflowApp & { startableVersionId: string | undefined };

/** An app of the tenant by id or code, with the version a start would use: the newest online for the mode. */
export async function startableApp(
  sql: Queryable,
  tenantId: string,
  idc: string,
  test: boolean,
): Promise<StartableApp | undefined> {
  const [row] = await sql<(WorkflowApp & { startableVersionId: string | null })[]>`
    select ${sql.unsafe(APP_COLUMNS)},
      (select v.id from workflow_versions v
       where v.app_id = workflow_apps.id and ${test ? sql`v.online_test` : sql`v.online_formal`}
       order by v.number desc limit 1) as "startableVersionId"
    from workflow_apps
    where tenant_id = ${tenantId} and ${isAppId(idc) ? sql`id = ${idc}` : sql`code = ${idc}`}`;
  return row && { ...row, startableVersionId: row.startableVersionId ?? undefined };
}

/** Takes a version on or off line for one data mode; false when the app has no such version. */
export async function setVersionOnline(
  sql: Queryable,
  appId: string,
  versionId: string,
  test: boolean,
  online: boolean,
): Promise<boolean> {
  const rows = await sql`
    update workflow_versions set ${test ? sql`online_test = ${online}` : sql`online_formal = ${online}`}
    where app_id = ${appId} and id = ${versionId}
    returning id`;
  return rows.length > 0;
}

/** 4.2's changes of an app; fields left out stay. */
export async function updateWorkflowAppSettings(
  sql: Queryable,
  appId: string,
  change: {
    recommendation?: number | undefined;
    ready?: boolean | undefined;
    visible?: boolean | undefined;
    department?: string | undefined;
    contact?: string | undefined;
  },
): Promise<WorkflowApp> {
  const [row] = await sql<WorkflowApp[]>`
    update workflow_apps set
      recommendation = coalesce(${change.recommendation ?? null}::integer, recommendation),
      ready = coalesce(${change.ready ?? null}::boolean, ready),
      visible = coalesce(${change.visible ?? null}::boolean, visible),
      department = coalesce(${change.department ?? null}::text, department),
      contact = coalesce(${change.contact ?? null}::text, contact),
      updated_at = now()
    where id = ${appId}
    returning ${sql.unsafe(APP_COLUMNS)}`;
  return row!;
}

/** An app's `rating` (0-100, the mean of its processes' stars) and `rated` (how many were rated). */
export async function appRatings(
  sql: Queryable,
  appId: string,
  test: boolean,
): Promise<{ rating: number; rated: number }> {
  const [row] = await sql<{ rating: number; rated: number }[]>`
    select coalesce(round(avg(rating) * 20), 0)::int as rating, count(rating)::int as rated
    from workflow_processes where app_id = ${appId} and test = ${test} and rating is not null`;
  return row!;
}

const compiled = new Map<string, CompiledWorkflow>();
const COMPILED_KEPT = 500;

/** A version's definition prepared for the engine, kept in memory: versions never change. */
export async function compiledVersion(sql: Queryable, versionId: string): Promise<CompiledWorkflow> {
  const cached = compiled.get(versionId);
  if (cached) return cached;
  const [row] = await sql<{ definition: WorkflowDefinition }[]>`
    select definition from workflow_versions where id = ${versionId}`;
  if (!row) throw new Error(`no workflow version ${versionId}`);
  const workflow = new CompiledWorkflow(row.definition);
  if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
  compiled.set(versionId, workflow);
  return workflow;
}

/** At most `limit` apps of a tenant by code, after the code `after`. */
export async function workflowAppPage(
  sql: Queryable,
  tenantId: string,
  after: string | null,
  limit: number,
): Promise<WorkflowApp[]> {
  return sql<WorkflowApp[]>`
    select ${sql.unsafe(APP_COLUMNS)} from workflow_apps
    where tenant_id = ${tenantId} ${after === null ? sql`` : sql`and code > ${after}`}
    order by code limit ${limit}`;
}

/** A version without its definition, and how many versions its app has in all. */
export type VersionSummary = Omit<WorkflowVersion, "definition"> & { versionCount: number };

/** The newest `perApp` versions of each app, newest first, without their definitions. */
export async function versionSummaries(
  sql: Queryable,
  appIds: readonly string[],
  perApp: number,
): Promise<VersionSummary[]> {
  return sql<VersionSummary[]>`
    select v.* from unnest(${appIds as string[]}::uuid[]) as a (id)
    cross join lateral (
      select id, app_id as "appId", number, name, online_formal as "onlineFormal", online_test as "onlineTest",
             created_at as "createdAt", count(*) over ()::int as "versionCount"
      from workflow_versions where app_id = a.id
      order by number desc limit ${perApp}) v
    order by v."appId", v.number desc`;
}

/**
 * At most `max` versions of an app, oldest first: every one online for either data mode, then the
 * newest of the others.
 */
export async function exportedVersions(
  sql: Queryable,
  appId: string,
  max: number,
): Promise<WorkflowVersion[]> {
  return sql<WorkflowVersion[]>`
    select * from (
      select ${sql.unsafe(VERSION_COLUMNS)} from workflow_versions where app_id = ${appId}
      order by (online_formal or online_test) desc, number desc limit ${max}) v
    order by number`;
}
