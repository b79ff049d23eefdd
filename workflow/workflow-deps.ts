import type { Sql } from "../runtime/database.ts";
import type { StartableApps } from "./startable-apps.ts";
import type { TaskLinks } from "./task-links.ts";

/** What the workflow API's services work with, made once for each data mode. */
export interface WorkflowDeps {
  sql: Sql;
  /** The apps a start names, remembered until a change of the tenant's apps is announced. */
  apps: StartableApps;
  taskLinks: TaskLinks;
  /** The API base the answers' `uri`s are written under (`{PUBLIC_URL}/apis/v2` or `/apis/v2d`). */
  apiBase: string;
  /** How deep a form's JSON may nest. */
  jsonMaxDepth: number;
}
