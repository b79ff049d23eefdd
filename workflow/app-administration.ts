import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { type Database, type Queryable, transaction } from "../runtime/database.ts";
import { mayStartApp } from "./access-grant-store.ts";
import {
  appRatings,
  setVersionOnline,
  updateWorkflowAppSettings,
  versionsOf,
  type WorkflowApp,
  type WorkflowVersion,
} from "./app-store.ts";
import { visibleApp } from "./own-workflow.ts";
import type { WorkflowCaller } from "./workflow-caller.ts";

/** 4.2's parameters that are the app's own rather than a data mode's. */
const APP_WIDE_SETTINGS = ["ready", "visible", "recommendation", "department", "contact"] as const;

function online(version: WorkflowVersion, test: boolean): boolean {
  return test ? version.onlineTest : version.onlineFormal;
}

function versionView(version: WorkflowVersion, test: boolean, current: WorkflowVersion | undefined) {
  return {
    id: version.id,
    name: version.name,
    number: version.number,
    current: version.id === current?.id,
    online: online(version, test),
    schema: version.definition.schema,
    graph: version.definition.graph,
    events: version.definition.events ?? [],
  };
}

/** Spec 001's `app`, with the version 4.1 asks for (the current one by default) and, if asked, every version. */
async function appView(
  sql: Queryable,
  publicUrl: string,
  app: WorkflowApp,
  caller: WorkflowCaller,
  options: { version?: string | undefined; includeVersions: boolean },
) {
  const versions = await versionsOf(sql, app.id);
  // The newest version online for the data mode is the one a start uses.
  const current = versions.find((version) => online(version, caller.test));
  const chosen = options.version
    ? versions.find((version) => version.id === options.version || String(version.number) === options.version)
    : current;
  if (options.version && !chosen)
    throw new WorkflowRefusal("VERSION_NOT_FOUND", `no version ${options.version} of ${app.code}`);
  const { rating, rated } = await appRatings(sql, app.id, caller.test);
  const ready = app.ready && current !== undefined;
  // A sys token naming no user starts for a user it names then, whose starts are checked at that time.
  const startable =
    ready &&
    (!caller.userId || (await mayStartApp(sql, caller.tenantId, caller.test, app.id, caller.userId)));
  return {
    id: app.id,
    name: app.name,
    uri: `${publicUrl}${caller.test ? "/apis/v2d" : "/apis/v2"}/app/${app.code}`,
    code: app.code,
    abbreviation: app.abbreviation,
    description: app.description,
    tags: app.tags,
    icon: app.icon,
    palette: app.palette,
    department: app.department,
    contact: app.contact,
    recommend: app.recommendation,
    rating,
    rated,
    visible: app.visible,
    ready,
    startable,
    system: "",
    currentVersion: chosen ? versionView(chosen, caller.test, current) : null,
    versions: options.includeVersions
      ? versions.map((version) => versionView(version, caller.test, current))
      : undefined,
  };
}

/** 4.1: an app with the form of its current version (or `version`) and, if asked, every version. */
export async function appDetails(
  sql: Queryable,
  publicUrl: string,
  caller: WorkflowCaller,
  idc: string,
  options: { version?: string | undefined; includeVersions?: boolean | undefined },
) {
  const found = await visibleApp(sql, caller, idc);
  return appView(sql, publicUrl, found, caller, {
    version: options.version,
    includeVersions: options.includeVersions ?? false,
  });
}

/**
 * 4.2: takes versions on or off line (for test data with `beta`) and changes the app's settings,
 * which hold for both data modes and so change through the formal API only. For sys tokens: users
 * become administrators of apps through the access grants of 7.x.
 */
export async function changeApp(
  db: Database,
  publicUrl: string,
  caller: WorkflowCaller,
  idc: string,
  change: Parameters<typeof updateWorkflowAppSettings>[2] & {
    online?: string | undefined;
    offline?: string | undefined;
    beta?: boolean | undefined;
  },
) {
  if (!caller.sys) throw new WorkflowRefusal("NOT_AN_ADMINISTRATOR", "the user administers no workflow app");
  const shared = APP_WIDE_SETTINGS.find((name) => caller.test && change[name] !== undefined);
  if (shared)
    throw new WorkflowRefusal("DATA_INVALID", `${shared}: the app's settings are changed through /apis/v2`);
  const changed = await transaction(db.sql, async (tx) => {
    const found = await visibleApp(tx, caller, idc);
    const test = caller.test || (change.beta ?? false);
    for (const [versionId, isOnline] of [
      [change.online, true],
      [change.offline, false],
    ] as const) {
      if (versionId && !(await setVersionOnline(tx, found.id, versionId, test, isOnline))) {
        throw new WorkflowRefusal("VERSION_NOT_FOUND", `no version ${versionId} of ${found.code}`);
      }
    }
    const updated = await updateWorkflowAppSettings(tx, found.id, change);
    return appView(tx, publicUrl, updated, caller, { includeVersions: true });
  });
  await db.changes.announce({ kind: "workflow-app", tenantId: caller.tenantId });
  return changed;
}
