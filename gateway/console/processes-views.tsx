import type { ProcessLine, ProcessOverview } from "../../workflow/process-oversight.ts";
import { href } from "./console-page.ts";
import { CsrfField, Layout, Pager, type PageSession, When } from "./layout.tsx";
import { Diagram, DiagramScripts, WorkflowNav } from "./workflows-views.tsx";

const STATUSES = ["doing", "suspended", "done", "killed"] as const;

/** What the process search was asked. */
export interface SearchFields {
  tenant: string | undefined;
  test: boolean;
  entry: string | undefined;
  owner: string | undefined;
  app: string | undefined;
  status: string | undefined;
}

function SearchForm(props: { fields: SearchFields }) {
  const { fields } = props;
  return (
    <form method="get" action="/console/workflows/processes" class="search">
      <label>
        Tenant (domain)
        <input type="text" name="tenant" value={fields.tenant ?? ""} required maxlength={253} />
      </label>
      <label>
        Serial number
        <input type="text" name="entry" value={fields.entry ?? ""} inputmode="numeric" maxlength={15} />
      </label>
      <label>
        Owner (account)
        <input type="text" name="owner" value={fields.owner ?? ""} maxlength={100} />
      </label>
      <label>
        App (code)
        <input type="text" name="app" value={fields.app ?? ""} maxlength={64} />
      </label>
      <label>
        Status
        <select name="status">
          <option value="">any</option>
          {STATUSES.map((status) => (
            <option value={status} selected={fields.status === status}>
              {status}
            </option>
          ))}
        </select>
      </label>
      <label>
        <input type="checkbox" name="test" value="1" checked={fields.test} /> test data
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

/** The process search and a page of what it found, newest first. */
export function processSearchView(props: {
  session: PageSession;
  fields: SearchFields;
  processes: readonly ProcessLine[] | undefined;
  next: string | null;
  nextHref: (after: string) => string;
}) {
  return (
    <Layout title="Processes" section="/console/workflows" session={props.session}>
      <WorkflowNav tenant={props.fields.tenant} />
      <SearchForm fields={props.fields} />
      {props.processes === undefined ? null : props.processes.length === 0 ? (
        <p class="muted">No process found.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col" class="number">
                Serial
              </th>
              <th scope="col">Title</th>
              <th scope="col">App</th>
              <th scope="col">Owner</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            {props.processes.map((process) => (
              <tr>
                <td class="number">
                  <a href={`/console/workflows/processes/${process.id}`}>{process.entry}</a>
                </td>
                <td>{process.name}</td>
                <td>
                  <code>{process.appCode}</code>
                </td>
                <td>
                  {process.ownerName} <span class="muted">{process.ownerAccount}</span>
                </td>
                <td>{process.status}</td>
                <td>
                  <When at={process.createdAt} />
                </td>
                <td>
                  <When at={process.endedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager next={props.next} href={props.nextHref} />
    </Layout>
  );
}

/** A button that asks to be confirmed: its form posts only with the box ticked. */
function ConfirmedAction(props: {
  session: PageSession;
  action: string;
  label: string;
  fields: Record<string, string>;
  remark?: boolean;
}) {
  return (
    <form method="post" action={props.action} class="inline confirm">
      <CsrfField session={props.session} />
      {Object.entries(props.fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {props.remark ? <input type="text" name="remark" placeholder="remark" maxlength={500} /> : null}
      <label>
        <input type="checkbox" name="confirm" value="yes" required /> sure
      </label>
      <button type="submit" class="danger">
        {props.label}
      </button>
    </form>
  );
}

/** One process: diagram with its steps marked, open tasks and who may handle them, activities, data. */
export function processView(props: {
  session: PageSession;
  overview: ProcessOverview;
  bpmn: string;
  countedUpTo: number;
}) {
  const { session, overview } = props;
  const { process } = overview;
  const action = `/console/workflows/processes/${process.id}`;
  const lifecycle =
    process.status === "doing"
      ? (["suspend", "kill"] as const)
      : process.status === "suspended"
        ? (["resume", "kill"] as const)
        : ([] as const);
  return (
    <Layout title={`Process ${overview.process.entry}`} section="/console/workflows" session={session}>
      <DiagramScripts />
      <WorkflowNav tenant={overview.tenantDomain} />
      <table class="facts">
        <tbody>
          <tr>
            <th scope="row">Title</th>
            <td>{process.name}</td>
          </tr>
          <tr>
            <th scope="row">Tenant and app</th>
            <td>
              {overview.tenantDomain} · {overview.appName} <code>{overview.appCode}</code> version{" "}
              {overview.versionNumber} · {process.test ? "test data" : "formal data"}
            </td>
          </tr>
          <tr>
            <th scope="row">Owner</th>
            <td>
              {overview.ownerName} <span class="muted">{overview.ownerAccount}</span>
            </td>
          </tr>
          <tr>
            <th scope="row">Status</th>
            <td data-status={process.status}>{process.status}</td>
          </tr>
          <tr>
            <th scope="row">Started, ended</th>
            <td>
              <When at={process.createdAt} />, <When at={process.endedAt} />
            </td>
          </tr>
          <tr>
            <th scope="row">Id</th>
            <td>
              <code>{process.id}</code>
            </td>
          </tr>
        </tbody>
      </table>
      {lifecycle.length > 0 ? (
        <p>
          {lifecycle.map((name) => (
            <ConfirmedAction
              session={session}
              action={`${action}/action`}
              label={name[0]!.toUpperCase() + name.slice(1)}
              fields={{ action: name }}
              remark={name !== "resume"}
            />
          ))}
        </p>
      ) : null}

      <h2>Diagram</h2>
      <Diagram
        bpmn={props.bpmn}
        passed={overview.passed}
        current={[...new Set(overview.open.map((task) => task.node))]}
      />

      <h2>Waiting now</h2>
      {overview.open.length === 0 ? (
        <p class="muted">No task waits.</p>
      ) : (
        <table class="open-tasks">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Status</th>
              <th scope="col">Since</th>
              <th scope="col">Who may handle it</th>
              <th scope="col">Reassign</th>
            </tr>
          </thead>
          <tbody>
            {overview.open.map((task) => (
              <tr data-task={task.id}>
                <td>
                  <code>{task.node}</code>
                </td>
                <td>{task.status}</td>
                <td>
                  <When at={task.assignedAt} />
                </td>
                <td class="handlers">
                  {task.handlers.length === 0 ? (
                    <span class="muted">nobody</span>
                  ) : (
                    <ul class="words">
                      {task.handlers.map((handler) => (
                        <li class={handler.disabled ? "disabled" : undefined} data-account={handler.account}>
                          {handler.name} ({handler.account}){handler.disabled ? ", disabled" : ""}
                        </li>
                      ))}
                    </ul>
                  )}
                  {task.handlerCount > task.handlers.length ? (
                    <span class="muted"> and {task.handlerCount - task.handlers.length} more</span>
                  ) : null}
                </td>
                <td>
                  {task.status === "todo" || task.status === "waiting" ? (
                    <form method="post" action={`${action}/reassign`} class="inline confirm">
                      <CsrfField session={session} />
                      <input type="hidden" name="task" value={task.id} />
                      <input
                        type="text"
                        name="accounts"
                        required
                        maxlength={1000}
                        placeholder="accounts, comma separated"
                        aria-label="accounts"
                      />
                      <label>
                        <input type="checkbox" name="confirm" value="yes" required /> sure
                      </label>
                      <button type="submit">Reassign</button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Activities</h2>
      <p class="muted">
        {overview.activityCount > overview.activities.length
          ? `The newest ${overview.activities.length} of ${overview.activityCount}${overview.activityCount >= props.countedUpTo ? " or more" : ""}.`
          : `${overview.activityCount} in all.`}
      </p>
      <table class="activities">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Category</th>
            <th scope="col">Level</th>
            <th scope="col">By</th>
            <th scope="col">What</th>
          </tr>
        </thead>
        <tbody>
          {overview.activities.map((activity) => (
            <tr>
              <td>
                <When at={activity.createdAt} />
              </td>
              <td>{activity.category}</td>
              <td>{activity.level}</td>
              <td>{activity.account ?? <span class="muted">system</span>}</td>
              <td>{activity.description}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Data</h2>
      <pre class="process-data">{JSON.stringify(process.data, null, 2)}</pre>
    </Layout>
  );
}

/** The process page of a search result's serial number, kept with the search. */
export function searchHref(fields: SearchFields, after?: string) {
  return href("/console/workflows/processes", {
    tenant: fields.tenant,
    test: fields.test ? "1" : undefined,
    entry: fields.entry,
    owner: fields.owner,
    app: fields.app,
    status: fields.status,
    after,
  });
}
