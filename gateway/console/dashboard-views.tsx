import type { QueueStats } from "../../contracts/broker.ts";
import { Layout, type PageSession, SECTIONS } from "./layout.tsx";

/** Every section but the dashboard itself. */
const PLACES = SECTIONS.slice(1);

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
