import type { StuckKind, StuckTask } from "../../workflow/process-oversight.ts";
import { href } from "./console-page.ts";
import { Layout, Pager, type PageSession, When } from "./layout.tsx";
import { WorkflowNav } from "./workflows-views.tsx";

/** What the stuck list was asked. */
export interface StuckFields {
  tenant: string | undefined;
  test: boolean;
  kind: StuckKind;
  days: number;
}

export function stuckHref(fields: StuckFields, after?: string) {
  return href("/console/workflows/stuck", {
    tenant: fields.tenant,
    test: fields.test ? "1" : undefined,
    kind: fields.kind,
    days: fields.kind === "stale" ? String(fields.days) : undefined,
    after,
  });
}

/** To-do tasks of running processes that waited too long, or that nobody can handle. */
export function stuckView(props: {
  session: PageSession;
  fields: StuckFields;
  tasks: readonly StuckTask[] | undefined;
  next: string | null;
}) {
  const { fields } = props;
  return (
    <Layout title="Stuck to-dos" section="/console/workflows" session={props.session}>
      <WorkflowNav tenant={fields.tenant} />
      <form method="get" action="/console/workflows/stuck" class="search">
        <label>
          Tenant (domain)
          <input type="text" name="tenant" value={fields.tenant ?? ""} required maxlength={253} />
        </label>
        <label>
          Which
          <select name="kind">
            <option value="stale" selected={fields.kind === "stale"}>
              waiting longer than
            </option>
            <option value="unhandled" selected={fields.kind === "unhandled"}>
              nobody can handle
            </option>
          </select>
        </label>
        <label>
          Days
          <input type="number" name="days" value={String(fields.days)} min="0" max="3650" step="any" />
        </label>
        <label>
          <input type="checkbox" name="test" value="1" checked={fields.test} /> test data
        </label>
        <button type="submit">Show</button>
      </form>
      <p class="muted">
        {fields.kind === "stale"
          ? `To-do tasks of running processes waiting for more than ${fields.days} days, the oldest first.`
          : "To-do tasks of running processes whose every candidate is disabled or gone, the oldest first."}
      </p>
      {props.tasks === undefined ? null : props.tasks.length === 0 ? (
        <p class="muted">Nothing stuck.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col" class="number">
                Process
              </th>
              <th scope="col">Title</th>
              <th scope="col">App</th>
              <th scope="col">Step</th>
              <th scope="col">Waiting since</th>
              <th scope="col" class="number">
                Who can handle it
              </th>
            </tr>
          </thead>
          <tbody>
            {props.tasks.map((task) => (
              <tr data-task={task.taskId}>
                <td class="number">
                  <a href={`/console/workflows/processes/${task.processId}`}>{task.entry}</a>
                </td>
                <td>{task.processName}</td>
                <td>
                  <code>{task.appCode}</code>
                </td>
                <td>
                  <code>{task.node}</code>
                </td>
                <td>
                  <When at={task.assignedAt} />
                </td>
                <td class="number">{task.able}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager next={props.next} href={(after) => stuckHref(fields, after)} />
    </Layout>
  );
}
