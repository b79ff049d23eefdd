import { type ChartDay, DayChart } from "./day-chart.tsx";
import { Layout, type PageSession, When } from "./layout.tsx";

/** The counting of a tenant's history, as the admin API reports it. */
interface HistoryView {
  startedAt: string | null;
  finishedAt: string | null;
  total: number | null;
  examined: number;
  counted: number;
}

/** A tenant's statistics: the setting, the counting of its history, and 8.3 by day as a chart. */
export function statisticsView(props: {
  session: PageSession;
  domain: string;
  test: boolean;
  on: boolean;
  timeZone: string;
  history: HistoryView | null;
  days: readonly ChartDay[];
}) {
  const { domain, history } = props;
  const other = `/console/tenants/statistics?domain=${encodeURIComponent(domain)}${props.test ? "" : "&test=1"}`;
  return (
    <Layout title={`Statistics of ${domain}`} section="/console/tenants" session={props.session}>
      <p>
        {props.on ? "Statistics are kept" : "Statistics are off"} ({props.timeZone}).{" "}
        {props.test ? "Test data" : "Formal data"}:{" "}
        <a href={other}>{props.test ? "formal data" : "test data"}</a>
      </p>
      {history ? (
        <p>
          History: {history.examined} of {history.total ?? "?"} processes gone through, {history.counted}{" "}
          counted by it; started <When at={history.startedAt} />,{" "}
          {history.finishedAt ? "finished " : "not finished"}
          {history.finishedAt ? <When at={history.finishedAt} /> : null}
        </p>
      ) : (
        <p class="muted">History: statistics were never switched on.</p>
      )}
      <h2>Processes per day</h2>
      <DayChart days={props.days} timeZone={props.timeZone} />
    </Layout>
  );
}
