import type { VersionSummary, WorkflowApp } from "../../workflow/workflow-admin.ts";
import { href } from "./console-page.ts";
import { ASSET_PATH } from "./diagram-assets.ts";
import {
  ActionForm,
  CsrfField,
  Flag,
  Layout,
  Pager,
  type PageSession,
  TenantPicker,
  When,
} from "./layout.tsx";

/** The links between the workflow pages of a tenant. */
export function WorkflowNav(props: { tenant: string | undefined }) {
  const tenant = props.tenant;
  return (
    <p class="subnav">
      <a href={href("/console/workflows", { tenant })}>Apps and versions</a> ·{" "}
      <a href={href("/console/workflows/processes", { tenant })}>Processes</a> ·{" "}
      <a href={href("/console/workflows/stuck", { tenant })}>Stuck to-dos</a>
    </p>
  );
}

/** The bpmn-js viewer's styles and script, and the console's script that draws with it. */
export function DiagramScripts() {
  return (
    <>
      <link rel="stylesheet" href={`${ASSET_PATH}/diagram-js.css`} />
      <link rel="stylesheet" href={`${ASSET_PATH}/bpmn-js.css`} />
      <script src={`${ASSET_PATH}/bpmn-viewer.js`} defer />
      <script src={`${ASSET_PATH}/workflow-diagram.js`} defer />
    </>
  );
}

/** A BPMN document drawn in the browser, the steps passed and the current ones marked. */
export function Diagram(props: { bpmn: string; passed?: readonly string[]; current?: readonly string[] }) {
  return (
    <div
      class="diagram"
      role="img"
      aria-label="the workflow's diagram"
      data-bpmn={props.bpmn}
      data-passed={(props.passed ?? []).join(" ")}
      data-current={(props.current ?? []).join(" ")}
    />
  );
}

function OnlineCell(props: {
  session: PageSession;
  tenant: string;
  app: string;
  version: VersionSummary;
  mode: "formal" | "test";
}) {
  const on = props.mode === "formal" ? props.version.onlineFormal : props.version.onlineTest;
  return (
    <td>
      <Flag on={on} yes="online" no="offline" />{" "}
      <ActionForm
        session={props.session}
        action="/console/workflows/online"
        label={on ? "Take off line" : "Put on line"}
        fields={{
          tenant: props.tenant,
          app: props.app,
          version: props.version.id,
          mode: props.mode,
          online: on ? "false" : "true",
        }}
        danger={on}
      />
    </td>
  );
}

/** A tenant's workflow apps with their newest versions, and the form that deploys a version. */
export function workflowsView(props: {
  session: PageSession;
  tenant: string | undefined;
  apps: readonly WorkflowApp[];
  versionsOf: ReadonlyMap<string, readonly VersionSummary[]>;
  processCounts: ReadonlyMap<string, number>;
  countCap: number;
  next: string | null;
  nextHref: (after: string) => string;
  maxBytes: number;
}) {
  const { session, tenant } = props;
  return (
    <Layout title="Workflows" section="/console/workflows" session={session}>
      <TenantPicker action="/console/workflows" tenant={tenant} />
      <WorkflowNav tenant={tenant} />
      {tenant === undefined ? null : (
        <>
          {props.apps.length === 0 ? <p class="muted">No workflow apps in {tenant}.</p> : null}
          {props.apps.map((app) => {
            const versions = props.versionsOf.get(app.id) ?? [];
            return (
              <section class="workflow-app">
                <h2>
                  {app.name} <code>{app.code}</code>
                </h2>
                <p class="muted">
                  {versions[0]?.versionCount ?? 0} {versions[0]?.versionCount === 1 ? "version" : "versions"}
                  {versions.length < (versions[0]?.versionCount ?? 0)
                    ? `, the newest ${versions.length} shown`
                    : ""}
                  {" · "}
                  <a href={href("/console/workflows/processes", { tenant, app: app.code })}>its processes</a>
                </p>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Version</th>
                      <th scope="col">Deployed</th>
                      <th scope="col">Formal data</th>
                      <th scope="col">Test data (beta)</th>
                      <th scope="col" class="number">
                        Processes
                      </th>
                      <th scope="col">Diagram</th>
                    </tr>
                  </thead>
                  <tbody>
                    {versions.map((version) => {
                      const count = props.processCounts.get(version.id) ?? 0;
                      return (
                        <tr data-version={version.id}>
                          <td>
                            {version.number} {version.name ? <span class="muted">{version.name}</span> : null}
                          </td>
                          <td>
                            <When at={version.createdAt} />
                          </td>
                          <OnlineCell
                            session={session}
                            tenant={tenant}
                            app={app.code}
                            version={version}
                            mode="formal"
                          />
                          <OnlineCell
                            session={session}
                            tenant={tenant}
                            app={app.code}
                            version={version}
                            mode="test"
                          />
                          <td class="number">
                            {count >= props.countCap ? `${props.countCap} or more` : count}
                          </td>
                          <td>
                            <a
                              href={href("/console/workflows/diagram", {
                                tenant,
                                app: app.code,
                                version: version.id,
                              })}
                            >
                              Diagram
                            </a>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </section>
            );
          })}
          <Pager next={props.next} href={props.nextHref} />

          <h2>Deploy a version</h2>
          <p class="muted">
            A BPMN 2.0 document with the platform's extension, or the JSON graph (a definition, or a
            deployment with its <code>definition</code> or <code>bpmn</code>), of at most {props.maxBytes}{" "}
            bytes. The app is made when new; the same definition again is the same version. A box ticked puts
            the version on line; left empty, a new version starts off line and one deployed before stays as it
            is.
          </p>
          <form
            method="post"
            action="/console/workflows/deploy"
            enctype="multipart/form-data"
            class="stacked"
          >
            <CsrfField session={session} />
            <input type="hidden" name="tenant" value={tenant} />
            <label for="deploy-code">App code</label>
            <input type="text" id="deploy-code" name="code" required maxlength={64} />
            <label for="deploy-name">Version name (optional)</label>
            <input type="text" id="deploy-name" name="name" maxlength={200} />
            <label for="deploy-file">BPMN or JSON file</label>
            <input type="file" id="deploy-file" name="file" accept=".bpmn,.xml,.json" required />
            <fieldset class="choices">
              <label>
                <input type="checkbox" id="deploy-online" name="online" value="true" /> online for formal data
              </label>
              <label>
                <input type="checkbox" id="deploy-beta" name="beta" value="true" /> online for test data
              </label>
            </fieldset>
            <p>
              <button type="submit">Deploy</button>
            </p>
          </form>
        </>
      )}
    </Layout>
  );
}

/** A version's diagram, drawn in the browser from its BPMN export. */
export function diagramView(props: {
  session: PageSession;
  tenant: string;
  app: string;
  versionId: string;
  bpmn: string;
}) {
  return (
    <Layout title={`Diagram of ${props.app}`} section="/console/workflows" session={props.session}>
      <DiagramScripts />
      <WorkflowNav tenant={props.tenant} />
      <p>
        {props.tenant} · <code>{props.app}</code> · version <code>{props.versionId}</code>
      </p>
      <Diagram bpmn={props.bpmn} />
    </Layout>
  );
}
