import type { QueueStats } from "../../contracts/broker.ts";
import { Layout, type PageSession } from "./layout.tsx";

const PLACES = [
  ["/console/tenants", "Tenants", "the tenants and their settings"],
  ["/console/applications", "Applications", "approve scopes and grants, disable, give a new secret"],
  ["/console/users", "Users", "a tenant's accounts: find, disable, enable"],
  ["/console/seals", "Seals", "see, upload and withdraw seals"],
  ["/console/channels", "Channels", "edit a notification channel, send a test message"],
  ["/console/feeds", "Feeds", "a tenant's enterprise feed: settings, runs, a run now"],
  ["/console/queues", "Queues", "depth, consumers, dead letters: replay or purge"],
  ["/console/notifications", "Notifications", "a notification's delivery tasks"],
] as const;

/** The first page: where to go, and whether any queue holds dead letters. */
export function dashboardView(props: {
  session: PageSession;
  queues: QueueStats[] | undefined;
  broker: string;
}) {
  const dead = props.queues?.filter((queue) => queue.dead > 0) ?? [];
  return (
    <Layout title="Dashboard" section="/console" session={props.session}>
      <ul class="places">
        {PLACES.map(([href, name, what]) => (
          <li>
            <a href={href}>{name}</a>: {what}
          </li>
        ))}
      </ul>
      <h2>Dead letters</h2>
      {props.queues === undefined ? (
        <p class="flash error">The broker ({props.broker}) does not answer.</p>
      ) : dead.length === 0 ? (
        <p>No queue holds dead letters.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col" class="number">
                Dead letters
              </th>
            </tr>
          </thead>
          <tbody>
            {dead.map((queue) => (
              <tr>
                <td>
                  <a href={`/console/queues/${encodeURIComponent(queue.queue)}`}>{queue.queue}</a>
                </td>
                <td class="number">{queue.dead}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
