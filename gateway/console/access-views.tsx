import type { tenantAccessLists } from "../../workflow/app-starters.ts";
import { CsrfField, Layout, type PageSession, TenantPicker, Words } from "./layout.tsx";

type Lists = Awaited<ReturnType<typeof tenantAccessLists>>;

/** A form replacing one list of accounts and positions. */
function ListForm(props: {
  session: PageSession;
  action: string;
  fields: Record<string, string>;
  accounts: string[];
  positions: string[];
  label: string;
}) {
  return (
    <form method="post" action={props.action} class="search">
      <CsrfField session={props.session} />
      {Object.entries(props.fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <label>
        Accounts
        <input type="text" name="accounts" value={props.accounts.join(", ")} maxlength={20000} />
      </label>
      <label>
        Positions (dept:post, * for any)
        <input type="text" name="positions" value={props.positions.join(", ")} maxlength={20000} />
      </label>
      <button type="submit">{props.label}</button>
    </form>
  );
}

export function accessView(props: {
  session: PageSession;
  tenant: string | undefined;
  lists: Lists | undefined;
}) {
  const { session, tenant, lists } = props;
  return (
    <Layout title={tenant ? `Access in ${tenant}` : "Access"} section="/console/access" session={session}>
      <TenantPicker action="/console/access" tenant={tenant} />
      {!lists ? (
        <p class="muted">Name a tenant to see its administrators and its apps' starters.</p>
      ) : (
        <>
          <h2>Tenant administrators</h2>
          <p class="muted">
            They grant and revoke access to positions (spec 001 7.3, 7.4) with their own tokens. Lists are
            separated by commas; saving replaces the list.
          </p>
          <ListForm
            session={session}
            action="/console/access/administrators"
            fields={{ tenant: lists.tenant }}
            accounts={lists.administrators.accounts}
            positions={lists.administrators.positions}
            label="Save administrators"
          />
          <h2>App starters</h2>
          <p class="muted">
            Who may start each workflow app; an app with none is started by everyone in the tenant.
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Starters</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {lists.apps.map((app) => (
                <tr>
                  <td>
                    {app.name} <span class="muted">{app.code}</span>
                  </td>
                  <td>
                    <Words words={[...app.accounts, ...app.positions]} none="everyone in the tenant" />
                  </td>
                  <td>
                    <ListForm
                      session={session}
                      action="/console/access/starters"
                      fields={{ tenant: lists.tenant, code: app.code }}
                      accounts={app.accounts}
                      positions={app.positions}
                      label="Save starters"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {lists.apps.length === 0 ? <p class="muted">The tenant has no workflow apps.</p> : null}
        </>
      )}
    </Layout>
  );
}
