import { z } from "zod";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import {
  actAsOperator,
  findProcesses,
  OPERATOR_ACTIONS,
  OVERVIEW_BOUNDS,
  processOverview,
  reassignAsOperator,
} from "../../workflow/process-oversight.ts";
import { tenantWorkflowVersionBpmn } from "../../workflow/workflow-admin.ts";
import { pageOf } from "../admin-paging.ts";
import type { GatewayUses } from "../gateway-env.ts";
import {
  CONSOLE_PAGE_SIZE,
  type ConsoleApp,
  checked,
  consolePage,
  pageKey,
  pageSession,
  redirectWith,
  render,
  renderWithScripts,
  tenantSchema,
} from "./console-page.ts";
import { processSearchView, processView, type SearchFields, searchHref } from "./processes-views.tsx";

const searchSchema = z.object({
  tenant: tenantSchema,
  entry: z.coerce.number().int().min(1).max(999_999_999_999_999).optional(),
  owner: z.string().min(1).max(100).optional(),
  app: z.string().min(1).max(64).optional(),
  status: z.enum(["doing", "suspended", "done", "killed"]).optional(),
});
const actionSchema = z.object({
  action: z.enum(OPERATOR_ACTIONS),
  confirm: z.literal("yes", "tick the box to confirm"),
  remark: z.string().max(500).optional(),
});
const reassignSchema = z.object({
  task: z.uuid(),
  accounts: z.string().max(1000),
  confirm: z.literal("yes", "tick the box to confirm"),
});
const ACCOUNTS_MAX = 50;

/** The operator's processes: the search, a process's page, and its lifecycle and reassignment actions. */
export function processPages(app: ConsoleApp, deps: GatewayUses<"db" | "log">) {
  const sql = deps.db.sql;
  const processHref = (id: string) => `/console/workflows/processes/${id}`;

  consolePage(app, "/workflows/processes", {
    get: async (c) => {
      const query = (name: string) => c.req.query(name) || undefined;
      const fields: SearchFields = {
        tenant: query("tenant"),
        test: query("test") === "1",
        entry: query("entry"),
        owner: query("owner"),
        app: query("app"),
        status: query("status"),
      };
      const session = pageSession(c);
      if (fields.tenant === undefined)
        return render(
          c,
          processSearchView({ session, fields, processes: undefined, next: null, nextHref: () => "" }),
        );
      const search = checked(searchSchema, fields);
      const [after = null] = pageKey(c, 1) ?? [];
      const before = after === null ? null : checked(z.coerce.number().int().min(1), after, "after");
      const rows = await findProcesses(
        sql,
        { ...search, domain: search.tenant, test: fields.test },
        before,
        CONSOLE_PAGE_SIZE,
      );
      const page = pageOf(
        rows,
        CONSOLE_PAGE_SIZE,
        (row) => [String(row.entry)],
        (row) => row,
      );
      const view = processSearchView({
        session,
        fields,
        processes: page.items,
        next: page.next,
        nextHref: (next) => searchHref(fields, next),
      });
      return render(c, view);
    },
  });

  consolePage(app, "/workflows/processes/:id", {
    get: async (c) => {
      const id = checked(z.uuid(), c.req.param("id"), "id").toLowerCase();
      const overview = await processOverview(sql, id);
      const { process } = overview;
      const bpmn = await tenantWorkflowVersionBpmn(
        sql,
        overview.tenantDomain,
        overview.appCode,
        process.versionId,
      );
      const countedUpTo = OVERVIEW_BOUNDS.activitiesCounted;
      return renderWithScripts(c, processView({ session: pageSession(c), overview, bpmn, countedUpTo }));
    },
  });

  /** Runs an operator's command, a refusal shown on the process's page. */
  async function refusedOrDone(
    c: Parameters<typeof redirectWith>[0],
    id: string,
    work: () => Promise<string>,
  ) {
    try {
      const text = await work();
      return redirectWith(c, processHref(id), { kind: "done", text });
    } catch (error) {
      if (
        !(error instanceof WorkflowRefusal) &&
        !(error instanceof PlatformError && error.code === ErrorCode.InvalidArgument)
      )
        throw error;
      return redirectWith(c, processHref(id), { kind: "error", text: error.message });
    }
  }

  consolePage(app, "/workflows/processes/:id/action", {
    post: async (c) => {
      const id = checked(z.uuid(), c.req.param("id"), "id").toLowerCase();
      const form = c.get("form");
      return refusedOrDone(c, id, async () => {
        const { action, remark } = checked(actionSchema, {
          action: form.get("action"),
          confirm: form.get("confirm"),
          remark: form.get("remark") || undefined,
        });
        await actAsOperator(sql, id, action, remark);
        deps.log.info({ process: id, action }, "process acted on in the console");
        return `The process is ${{ suspend: "suspended", resume: "resumed", kill: "killed" }[action]}.`;
      });
    },
  });

  consolePage(app, "/workflows/processes/:id/reassign", {
    post: async (c) => {
      const id = checked(z.uuid(), c.req.param("id"), "id").toLowerCase();
      const form = c.get("form");
      return refusedOrDone(c, id, async () => {
        const { task, accounts } = checked(reassignSchema, {
          task: form.get("task"),
          accounts: form.get("accounts"),
          confirm: form.get("confirm"),
        });
        const named = accounts
          .split(/[\s,]+/)
          .filter(Boolean)
          .slice(0, ACCOUNTS_MAX + 1);
        if (named.length === 0 || named.length > ACCOUNTS_MAX)
          throw new WorkflowRefusal("DATA_INVALID", `accounts: one to ${ACCOUNTS_MAX} accounts`);
        await reassignAsOperator(sql, id, task, named);
        deps.log.info({ process: id, task }, "task reassigned in the console");
        return `The task is given to ${named.join(", ")}.`;
      });
    },
  });
}
