import type { MembershipRow } from "../../tenant/memberships.ts";
import type { TagRow } from "../../tenant/tags.ts";
import { ActionForm, CsrfField, Flag, Layout, type PageSession } from "./layout.tsx";

/** A tenant's tags, memberships and settings, with the forms that change them. */
export function tenantDataView(props: {
  session: PageSession;
  domain: string;
  tags: TagRow[];
  memberships: MembershipRow[];
  settings: Record<string, unknown>;
}) {
  const { session, domain } = props;
  const none = <span class="muted">—</span>;
  return (
    <Layout
      title={`Tags, memberships and settings of ${domain}`}
      section="/console/tenants"
      session={session}
    >
      <h2>Tags</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Index</th>
            <th scope="col">Palette</th>
            <th scope="col">Visible</th>
            <th scope="col">Description</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {props.tags.map((tag) => (
            <tr>
              <td>{tag.name}</td>
              <td>{tag.index}</td>
              <td>{tag.palette ?? none}</td>
              <td>
                <Flag on={tag.visible} yes="visible" no="hidden" />
              </td>
              <td>{tag.description ?? none}</td>
              <td>
                <ActionForm
                  session={session}
                  action="/console/tenants/data/remove-tag"
                  label="Remove"
                  fields={{ domain, name: tag.name }}
                  danger
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.tags.length === 0 ? <p class="muted">No tags.</p> : null}
      <form method="post" action="/console/tenants/data/tag" class="stacked">
        <CsrfField session={session} />
        <input type="hidden" name="domain" value={domain} />
        <label for="tag-name">Name (a tag of that name is changed)</label>
        <input type="text" id="tag-name" name="name" required maxlength={64} />
        <label for="tag-index">Index (the lists' order)</label>
        <input type="number" id="tag-index" name="index" value="0" />
        <label for="tag-palette">Palette (# and six hex digits)</label>
        <input type="text" id="tag-palette" name="palette" maxlength={7} />
        <label for="tag-description">Description</label>
        <input type="text" id="tag-description" name="description" maxlength={2000} />
        <label>
          <input type="checkbox" name="visible" value="true" checked /> visible
        </label>
        <p>
          <button type="submit">Save the tag</button>
        </p>
      </form>

      <h2>Memberships</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Code</th>
            <th scope="col">Name</th>
            <th scope="col">Address</th>
            <th scope="col">Attributes</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {props.memberships.map((membership) => (
            <tr>
              <td>{membership.provider}</td>
              <td>{membership.code}</td>
              <td>{membership.name ?? none}</td>
              <td>{membership.uri ?? none}</td>
              <td>
                <code>{JSON.stringify(membership.attributes)}</code>
              </td>
              <td>
                <ActionForm
                  session={session}
                  action="/console/tenants/data/remove-membership"
                  label="Remove"
                  fields={{ domain, provider: membership.provider }}
                  danger
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.memberships.length === 0 ? <p class="muted">No memberships.</p> : null}
      <form method="post" action="/console/tenants/data/membership" class="stacked">
        <CsrfField session={session} />
        <input type="hidden" name="domain" value={domain} />
        <label for="membership-provider">Provider (a membership of that provider is changed)</label>
        <input type="text" id="membership-provider" name="provider" required maxlength={64} />
        <label for="membership-code">The tenant's id at the provider</label>
        <input type="text" id="membership-code" name="code" required maxlength={200} />
        <label for="membership-name">Name</label>
        <input type="text" id="membership-name" name="name" maxlength={200} />
        <label for="membership-uri">Address</label>
        <input type="url" id="membership-uri" name="uri" maxlength={2048} />
        <label for="membership-attributes">Attributes (a JSON object of strings)</label>
        <input type="text" id="membership-attributes" name="attributes" value="{}" maxlength={10000} />
        <p>
          <button type="submit">Save the membership</button>
        </p>
      </form>

      <h2>Settings</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(props.settings).map(([name, value]) => (
            <tr>
              <td>{name}</td>
              <td>
                {value === null ? <span class="muted">not set</span> : <code>{JSON.stringify(value)}</code>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="post" action="/console/tenants/data/setting" class="stacked">
        <CsrfField session={session} />
        <input type="hidden" name="domain" value={domain} />
        <label for="setting-name">Setting</label>
        <select id="setting-name" name="name" required>
          {Object.keys(props.settings).map((name) => (
            <option value={name}>{name}</option>
          ))}
        </select>
        <label for="setting-value">Value (JSON; null removes the setting)</label>
        <textarea id="setting-value" name="value" rows={6} maxlength={20000} spellcheck={false} required>
          null
        </textarea>
        <p>
          <button type="submit">Save the setting</button>
        </p>
      </form>
    </Layout>
  );
}
