import type { DeadLetter } from "../../contracts/broker.ts";
import type { OutboxLag } from "../../workflow/outbox/outbox-lag.ts";
import { ActionForm, Layout, type PageSession } from "./layout.tsx";

export interface QueueView {
  queue: string;
  ready: number;
  consumers: number;
  dead: number;
  replayable: boolean;
}

const queueHref = (queue: string) => `/console/queues/${encodeURIComponent(queue)}`;
/** A job is shown up to this many characters of its JSON. */
const MESSAGE_SHOWN = 4000;

function shown(message: unknown): string {
  const text = JSON.stringify(message, null, 2) ?? String(message);
  return text.length > MESSAGE_SHOWN
    ? `${text.slice(0, MESSAGE_SHOWN)}\n… (${text.length} characters)`
    : text;
}

export function queuesView(props: { session: PageSession; queues: QueueView[]; outbox: OutboxLag }) {
  return (
    <Layout title="Queues" section="/console/queues" session={props.session}>
      <table id="queues">
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col" class="number">
              Ready
            </th>
            <th scope="col" class="number">
              Consumers
            </th>
            <th scope="col" class="number">
              Dead letters
            </th>
            <th scope="col">Replayable</th>
          </tr>
        </thead>
        <tbody>
          {props.queues.map((queue) => (
            <tr>
              <td>
                <a href={queueHref(queue.queue)}>{queue.queue}</a>
              </td>
              <td class="number">{queue.ready}</td>
              <td class="number">{queue.consumers}</td>
              <td class="number">{queue.dead > 0 ? <strong class="flag">{queue.dead}</strong> : 0}</td>
              <td>{queue.replayable ? "yes" : <span class="muted">no: its callers stopped waiting</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <OutboxTable outbox={props.outbox} />
    </Layout>
  );
}

/** How far the outbox relay's subscribers are behind the engine's events. */
function OutboxTable(props: { outbox: OutboxLag }) {
  const { unsequenced, subscribers } = props.outbox;
  return (
    <>
      <h2>Workflow events</h2>
      <p>
        The outbox relay hands each workflow event to these subscribers
        {unsequenced > 0 ? `; ${unsequenced} events wait for a position` : ""}.
      </p>
      {subscribers.length === 0 ? (
        <p class="muted">No subscriber has run yet: no worker process has started.</p>
      ) : (
        <table id="outbox">
          <thead>
            <tr>
              <th scope="col">Subscriber</th>
              <th scope="col" class="number">
                Events behind
              </th>
              <th scope="col" class="number">
                Seconds behind
              </th>
              <th scope="col">Last moved</th>
            </tr>
          </thead>
          <tbody>
            {subscribers.map((lag) => (
              <tr>
                <td>{lag.subscriber}</td>
                <td class="number">
                  {lag.eventsBehind > 0 ? <strong class="flag">{lag.eventsBehind}</strong> : 0}
                </td>
                <td class="number">{Math.round(lag.secondsBehind)}</td>
                <td>{lag.updatedAt.toISOString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function deadLettersView(props: {
  session: PageSession;
  queue: QueueView;
  letters: DeadLetter[];
  limit: number;
}) {
  const { session, queue, letters } = props;
  const base = queueHref(queue.queue);
  return (
    <Layout title={`Queue ${queue.queue}`} section="/console/queues" session={session}>
      <p>
        {queue.ready} ready, {queue.consumers} consumers, {queue.dead} dead letters
        {queue.dead > letters.length ? ` (the oldest ${letters.length} shown)` : ""}.
      </p>
      {letters.length === 0 ? (
        <p class="muted">No dead letters.</p>
      ) : (
        <>
          <p>
            {queue.replayable ? (
              <ActionForm session={session} action={`${base}/replay`} label="Replay all" />
            ) : (
              <span class="muted">Its jobs answer callers who stopped waiting: purge them instead. </span>
            )}{" "}
            <ActionForm session={session} action={`${base}/purge`} label="Purge all" danger />
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Message id</th>
                <th scope="col">Reason</th>
                <th scope="col" class="number">
                  Attempts
                </th>
                <th scope="col">Job</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {letters.map((letter) => (
                <tr>
                  <td>
                    <code>{letter.messageId}</code>
                  </td>
                  <td>{letter.reason}</td>
                  <td class="number">{letter.attempts}</td>
                  <td>
                    <pre>{shown(letter.message)}</pre>
                  </td>
                  <td>
                    {queue.replayable ? (
                      <ActionForm
                        session={session}
                        action={`${base}/replay`}
                        label="Replay"
                        fields={{ messageId: letter.messageId }}
                      />
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Layout>
  );
}
