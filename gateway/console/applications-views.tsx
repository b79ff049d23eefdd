import { APPLICATION_GRANTS, SCOPES } from "../../contracts/scopes.ts";
import type { ApplicationDetails } from "../../identity/application-admin.ts";
import type { ApplicationRecord, TenantRecord } from "../../identity/operator-lists.ts";
import { ActionForm, CsrfField, Flag, Layout, Pager, type PageSession, When, Words } from "./layout.tsx";

const applicationHref = (id: string) => `/console/applications/${encodeURIComponent(id)}`;

export function tenantsView(props: {
  session: PageSession;
  tenants: TenantRecord[];
  next: string | null;
  nextHref: (after: string) => string;
}) {
  return (
    <Layout title="Tenants" section="/console/tenants" session={props.session}>
      <table>
        <thead>
          <tr>
            <th scope="col">Domain</th>
            <th scope="col">Name</th>
            <th scope="col">Reminder channel</th>
            <th scope="col">Updated</th>
            <th scope="col">See</th>
          </tr>
        </thead>
        <tbody>
          {props.tenants.map((tenant) => {
            const query = `?tenant=${encodeURIComponent(tenant.domain)}`;
            return (
              <tr>
                <td>{tenant.domain}</td>
                <td>{tenant.name}</td>
                <td>{tenant.settings.workflow?.reminder?.channel ?? <span class="muted">none</span>}</td>
                <td>
                  <When at={tenant.updatedAt} />
                </td>
                <td>
                  <a href={`/console/applications${query}`}>applications</a> ·{" "}
                  <a href={`/console/users${query}`}>users</a> ·{" "}
                  <a href={`/console/access${query}`}>access</a> · <a href={`/console/feeds${query}`}>feed</a>{" "}
                  ·{" "}
                  <a href={`/console/tenants/data?domain=${encodeURIComponent(tenant.domain)}`}>
                    tags, memberships, settings
                  </a>{" "}
                  ·{" "}
                  <a href={`/console/tenants/statistics?domain=${encodeURIComponent(tenant.domain)}`}>
                    statistics
                  </a>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {props.tenants.length === 0 ? <p class="muted">No tenants.</p> : null}
      <Pager next={props.next} href={props.nextHref} />
    </Layout>
  );
}

export function applicationsView(props: {
  session: PageSession;
  tenant: string | undefined;
  applications: ApplicationRecord[];
  next: string | null;
  nextHref: (after: string) => string;
}) {
  return (
    <Layout title="Applications" section="/console/applications" session={props.session}>
      <form method="get" action="/console/applications" class="search">
        <label>
          Tenant (domain; empty: all)
          <input type="text" name="tenant" value={props.tenant ?? ""} maxlength={253} />
        </label>
        <button type="submit">Show</button>
      </form>
      <table>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Tenant</th>
            <th scope="col">Scopes</th>
            <th scope="col">Grants</th>
            <th scope="col">Disabled</th>
          </tr>
        </thead>
        <tbody>
          {props.applications.map((application) => (
            <tr>
              <td>
                <a href={applicationHref(application.id)}>{application.id}</a>
              </td>
              <td>{application.name}</td>
              <td>{application.type}</td>
              <td>{application.tenant ?? <span class="muted">global</span>}</td>
              <td>
                <Words words={application.scopes} none="none" />
              </td>
              <td>
                <Words words={application.grants} none="as its scopes allow" />
              </td>
              <td>
                <Flag on={application.disabled} yes="disabled" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.applications.length === 0 ? <p class="muted">No applications.</p> : null}
      <Pager next={props.next} href={props.nextHref} />
    </Layout>
  );
}

export function applicationView(props: { session: PageSession; application: ApplicationDetails }) {
  const { session, application } = props;
  const base = applicationHref(application.id);
  const approved = new Set(application.scopes);
  const grants = new Set(application.grants ?? []);
  const unknown = application.scopes.filter((scope) => !SCOPES.some((known) => known.name === scope));
  return (
    <Layout title={`Application ${application.id}`} section="/console/applications" session={session}>
      <table class="facts">
        <tbody>
          <tr>
            <th scope="row">Name</th>
            <td>{application.name}</td>
          </tr>
          <tr>
            <th scope="row">Type</th>
            <td>{application.type}</td>
          </tr>
          <tr>
            <th scope="row">Redirect URIs</th>
            <td>
              <Words words={application.redirectUris} none="none" />
            </td>
          </tr>
          <tr>
            <th scope="row">Secret</th>
            <td>{application.hasSecret ? "set (never shown)" : "none: a public client"}</td>
          </tr>
          <tr>
            <th scope="row">Access-token lifetime</th>
            <td>
              {application.accessTokenTtlSeconds === null
                ? "the platform's default"
                : `${application.accessTokenTtlSeconds} s`}
            </td>
          </tr>
          <tr>
            <th scope="row">State</th>
            <td>
              {application.disabled ? (
                <>
                  <strong class="flag">disabled</strong>: it gets no token, and its tokens are refused.{" "}
                  <ActionForm session={session} action={`${base}/enable`} label="Enable" />
                </>
              ) : (
                <>
                  enabled <ActionForm session={session} action={`${base}/disable`} label="Disable" danger />
                </>
              )}
            </td>
          </tr>
        </tbody>
      </table>

      <h2>New secret</h2>
      <p>The old secret stops working at once; the new one is shown once, on the next page.</p>
      <ActionForm session={session} action={`${base}/secret`} label="Give it a new secret" danger />

      <h2>Approved scopes and grants</h2>
      <form method="post" action={`${base}/access`}>
        <CsrfField session={session} />
        <fieldset class="choices">
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label title={scope.meaning}>
              <input type="checkbox" name="scope" value={scope.name} checked={approved.has(scope.name)} />{" "}
              {scope.name}
            </label>
          ))}
          {unknown.map((scope) => (
            <label>
              <input type="checkbox" name="scope" value={scope} checked /> {scope} (unknown)
            </label>
          ))}
        </fieldset>
        <fieldset class="choices">
          <legend>Grants (none ticked: every grant its scopes allow)</legend>
          {APPLICATION_GRANTS.map((grant) => (
            <label>
              <input type="checkbox" name="grant" value={grant} checked={grants.has(grant)} /> {grant}
            </label>
          ))}
        </fieldset>
        <p class="muted">
          Tokens issued before keep the scopes they were given until they expire; disable the application to
          stop them at once.
        </p>
        <button type="submit">Save scopes and grants</button>
      </form>
    </Layout>
  );
}

export function newSecretView(props: { session: PageSession; id: string; secret: string }) {
  return (
    <Layout title={`New secret of ${props.id}`} section="/console/applications" session={props.session}>
      <p>
        Application <strong>{props.id}</strong> has a new secret; the old one no longer works. It is shown
        only here, this once: copy it now.
      </p>
      <p>
        <code class="secret" id="secret">
          {props.secret}
        </code>
      </p>
      <p>
        <a href={applicationHref(props.id)}>Back to the application</a>
      </p>
    </Layout>
  );
}
