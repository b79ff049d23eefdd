import type { UserRecord } from "../../identity/operator-lists.ts";
import { ActionForm, Flag, Layout, Pager, type PageSession } from "./layout.tsx";

export function usersView(props: {
  session: PageSession;
  tenant: string | undefined;
  keyword: string | undefined;
  users: UserRecord[];
  next: string | null;
  nextHref: (after: string) => string;
}) {
  const { session, tenant } = props;
  return (
    <Layout title={tenant ? `Users of ${tenant}` : "Users"} section="/console/users" session={session}>
      <form method="get" action="/console/users" class="search">
        <label>
          Tenant (domain)
          <input type="text" name="tenant" value={tenant ?? ""} required maxlength={253} />
        </label>
        <label>
          Account starts with
          <input type="text" name="keyword" value={props.keyword ?? ""} maxlength={100} />
        </label>
        <button type="submit">Search</button>
      </form>
      {tenant === undefined ? (
        <p class="muted">Name a tenant to list its accounts.</p>
      ) : (
        <>
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Phone</th>
                <th scope="col">Source</th>
                <th scope="col">Password</th>
                <th scope="col">Disabled</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {props.users.map((user) => {
                const fields = { tenant, account: user.account, keyword: props.keyword ?? "" };
                return (
                  <tr>
                    <td>{user.account}</td>
                    <td>{user.name}</td>
                    <td>{user.email ?? <span class="muted">—</span>}</td>
                    <td>{user.phone ?? <span class="muted">—</span>}</td>
                    <td>{user.source}</td>
                    <td>{user.hasPassword ? "set" : <span class="muted">none</span>}</td>
                    <td>
                      <Flag on={user.disabled} yes="disabled" />
                    </td>
                    <td>
                      {user.disabled ? (
                        <ActionForm
                          session={session}
                          action="/console/users/enable"
                          label="Enable"
                          fields={fields}
                        />
                      ) : (
                        <ActionForm
                          session={session}
                          action="/console/users/disable"
                          label="Disable"
                          fields={fields}
                          danger
                        />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {props.users.length === 0 ? <p class="muted">No accounts match.</p> : null}
          <Pager next={props.next} href={props.nextHref} />
        </>
      )}
    </Layout>
  );
}
