import type { FeedRun, FeedSettings } from "../../directory/feeds.ts";
import { ActionForm, Layout, type PageSession, TenantPicker, When } from "./layout.tsx";

function Settings(props: { feed: FeedSettings }) {
  const { feed } = props;
  const rows: [string, string][] = [
    ["URL", feed.url],
    ["Addresses", feed.addresses],
    ["Authorization variable", feed.authorizationEnv ?? "none"],
    [
      "Interval",
      feed.intervalSeconds === 0 ? "runs from the console or admin API only" : `${feed.intervalSeconds} s`,
    ],
    ["Timeout", `${feed.timeoutSeconds} s`],
    ["Enabled", feed.enabled ? "yes" : "no"],
    [
      "Synced since",
      feed.syncedSince === null ? "never: the next run is a full pull" : String(feed.syncedSince),
    ],
  ];
  return (
    <table class="facts">
      <tbody>
        {rows.map(([name, value]) => (
          <tr>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">Next run</th>
          <td>
            <When at={feed.nextRunAt} />
          </td>
        </tr>
        <tr>
          <th scope="row">Retry at</th>
          <td>
            <When at={feed.retryAt} />
          </td>
        </tr>
      </tbody>
    </table>
  );
}

function Runs(props: { runs: FeedRun[] }) {
  if (props.runs.length === 0) return <p class="muted">No runs yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Queued</th>
          <th scope="col">Trigger</th>
          <th scope="col">Status</th>
          <th scope="col">Started</th>
          <th scope="col">Finished</th>
          <th scope="col">Counts</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {props.runs.map((run) => (
          <tr>
            <td>
              <When at={run.queuedAt} />
            </td>
            <td>{run.trigger}</td>
            <td
              class={
                run.status === "failed"
                  ? "status-fail"
                  : run.status === "succeeded"
                    ? "status-sent"
                    : undefined
              }
            >
              {run.status}
            </td>
            <td>
              <When at={run.startedAt} />
            </td>
            <td>
              <When at={run.finishedAt} />
            </td>
            <td>
              <pre>{JSON.stringify(run.counts)}</pre>
            </td>
            <td>{run.error ?? <span class="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A tenant's enterprise feed: settings, latest runs, and a run now. */
export function feedView(props: {
  session: PageSession;
  tenant: string | undefined;
  feed: FeedSettings | undefined;
  runs: FeedRun[];
}) {
  const { session, tenant, feed } = props;
  return (
    <Layout title={tenant ? `Feed of ${tenant}` : "Feeds"} section="/console/feeds" session={session}>
      <TenantPicker action="/console/feeds" tenant={tenant} />
      {tenant === undefined ? (
        <p class="muted">
          Name a tenant, or pick one on the <a href="/console/tenants">tenants</a> page.
        </p>
      ) : !feed ? (
        <p>{tenant} has no enterprise feed: its bootstrap entry sets one.</p>
      ) : (
        <>
          <Settings feed={feed} />
          <p>
            {feed.enabled ? (
              <ActionForm session={session} action="/console/feeds/run" label="Run now" fields={{ tenant }} />
            ) : (
              <span class="muted">The feed is disabled: it cannot run.</span>
            )}
          </p>
          <h2>Latest runs</h2>
          <Runs runs={props.runs} />
        </>
      )}
    </Layout>
  );
}
