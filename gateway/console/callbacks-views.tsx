import type { DeliveryRow } from "../../workflow/messenger/callback-admin.ts";
import { ActionForm, Layout, Pager, type PageSession } from "./layout.tsx";

export function deadCallbacksView(props: {
  session: PageSession;
  deliveries: DeliveryRow[];
  next: string | null;
  nextHref: (after: string) => string;
}) {
  const { session, deliveries } = props;
  return (
    <Layout title="Dead callbacks" section="/console/callbacks" session={session}>
      <p>
        Messenger callbacks whose receiver never took them, newest first. Replayed, a callback is posted
        again, its attempts counted anew.
      </p>
      {deliveries.length === 0 ? (
        <p class="muted">No dead callbacks.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Callback</th>
              <th scope="col">Tenant and app</th>
              <th scope="col">Event</th>
              <th scope="col">URL</th>
              <th scope="col" class="number">
                Attempts
              </th>
              <th scope="col">Last error</th>
              <th scope="col">Dead since</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr>
                <td>
                  <code>{delivery.id}</code>
                </td>
                <td>
                  {delivery.tenantDomain} · {delivery.appCode}
                </td>
                <td>
                  {delivery.type} <span class="muted">of process {delivery.processId}</span>
                </td>
                <td>
                  <code>{delivery.url}</code>
                </td>
                <td class="number">{delivery.attempts}</td>
                <td>{delivery.lastError}</td>
                <td>{delivery.endedAt?.toISOString() ?? ""}</td>
                <td>
                  <ActionForm
                    session={session}
                    action={`/console/callbacks/${delivery.id}/replay`}
                    label="Replay"
                  />
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
