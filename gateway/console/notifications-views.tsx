import type { NotificationBody } from "../../contracts/notification.ts";
import type { DeliveryTaskStatus } from "../../notifications/notification-status.ts";
import { Layout, type PageSession, When } from "./layout.tsx";

export function notificationView(props: {
  session: PageSession;
  id: string | undefined;
  notification: { applicationId: string; body: NotificationBody } | undefined;
  tasks: DeliveryTaskStatus[];
}) {
  const { id, notification } = props;
  return (
    <Layout title="Notifications" section="/console/notifications" session={props.session}>
      <form method="get" action="/console/notifications" class="search">
        <label>
          Notification id
          <input type="text" name="id" value={id ?? ""} required maxlength={36} size={40} />
        </label>
        <button type="submit">Show its tasks</button>
      </form>
      {id === undefined ? null : !notification ? (
        <p>There is no notification {id}.</p>
      ) : (
        <>
          <p>
            Sent by <strong>{notification.applicationId}</strong> on {notification.body.channels.join(", ")}
            {notification.body.name ? <>: “{notification.body.name}”</> : null}.
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Channel</th>
                <th scope="col">Recipient</th>
                <th scope="col">Status</th>
                <th scope="col">Detail</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Read</th>
                <th scope="col">Sent</th>
              </tr>
            </thead>
            <tbody>
              {props.tasks.map((task) => (
                <tr>
                  <td>
                    <code>{task.id}</code>
                  </td>
                  <td>{task.channel}</td>
                  <td>{[task.account, task.email, task.phone].filter(Boolean).join(", ")}</td>
                  <td class={`status status-${task.sendingStatus}`}>{task.sendingStatus}</td>
                  <td>{task.detail ?? ""}</td>
                  <td>{task.sendingStatus === "retrying" ? <When at={task.nextAttemptAt} /> : ""}</td>
                  <td>{task.readingStatus}</td>
                  <td>
                    <When at={task.sentAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="muted">
            A task that failed for a fault went to its queue's dead letters, with the reason: see{" "}
            <a href="/console/queues">queues</a>.
          </p>
        </>
      )}
    </Layout>
  );
}
