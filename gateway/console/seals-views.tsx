import type { SealRecord } from "../../seals/seal-service.ts";
import { ActionForm, CsrfField, Layout, Pager, type PageSession, When } from "./layout.tsx";

export function sealsView(props: {
  session: PageSession;
  seals: SealRecord[];
  next: string | null;
  nextHref: (after: string) => string;
  uploadPath: string;
  maxBytes: number;
}) {
  const { session } = props;
  return (
    <Layout title="Seals" section="/console/seals" session={session}>
      <table>
        <thead>
          <tr>
            <th scope="col">Image</th>
            <th scope="col">Code</th>
            <th scope="col">Tenant</th>
            <th scope="col">Name</th>
            <th scope="col">Printed size (pt)</th>
            <th scope="col" class="number">
              Bytes
            </th>
            <th scope="col" class="number">
              Version
            </th>
            <th scope="col">Updated</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {props.seals.map((seal) => {
            const query = new URLSearchParams({
              code: seal.code,
              ...(seal.tenant ? { tenant: seal.tenant } : {}),
            });
            return (
              <tr>
                <td>
                  <img class="seal" src={`/console/seals/image?${query}`} alt={`seal ${seal.code}`} />
                </td>
                <td>{seal.code}</td>
                <td>{seal.tenant ?? <span class="muted">platform-wide</span>}</td>
                <td>{seal.name}</td>
                <td>
                  {seal.width} × {seal.height}
                </td>
                <td class="number">{seal.size}</td>
                <td class="number">{seal.version}</td>
                <td>
                  <When at={seal.updatedAt} />
                </td>
                <td>
                  <ActionForm
                    session={session}
                    action="/console/seals/withdraw"
                    label="Withdraw"
                    fields={{ code: seal.code, tenant: seal.tenant ?? "" }}
                    danger
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {props.seals.length === 0 ? <p class="muted">No seals.</p> : null}
      <Pager next={props.next} href={props.nextHref} />

      <h2>Upload a seal</h2>
      <p class="muted">
        A PNG of at most {props.maxBytes} bytes, transparency kept. A seal of the same code (and tenant) is
        replaced, and gets a new version.
      </p>
      <form method="post" action={props.uploadPath} enctype="multipart/form-data" class="stacked">
        <CsrfField session={session} />
        <label for="seal-code">Code</label>
        <input
          type="text"
          id="seal-code"
          name="code"
          required
          maxlength={64}
          pattern="[A-Za-z0-9._\-]{1,64}"
        />
        <label for="seal-name">Name</label>
        <input type="text" id="seal-name" name="name" required maxlength={200} />
        <label for="seal-tenant">Tenant (domain; empty: platform-wide)</label>
        <input type="text" id="seal-tenant" name="tenant" maxlength={253} />
        <label for="seal-width">Width (points)</label>
        <input
          type="number"
          id="seal-width"
          name="width"
          value="120"
          min="1"
          max="2000"
          step="any"
          required
        />
        <label for="seal-height">Height (points)</label>
        <input
          type="number"
          id="seal-height"
          name="height"
          value="120"
          min="1"
          max="2000"
          step="any"
          required
        />
        <label for="seal-image">PNG image</label>
        <input type="file" id="seal-image" name="image" accept="image/png" required />
        <p>
          <button type="submit">Upload</button>
        </p>
      </form>
    </Layout>
  );
}
