/** One day of 8.3: its start (Unix seconds) and its counts. */
export interface ChartDay {
  time: number;
  started: number;
  completed: number;
  killed: number;
}

const SERIES = [
  ["started", "Started", "#3b6ea8"],
  ["completed", "Completed", "#3f8f4f"],
  ["killed", "Killed", "#b5473a"],
] as const;

const WIDTH = 640;
const HEIGHT = 240;
const LEFT = 40;
const BOTTOM = 28;
const TOP = 12;
const BAR = 14;

/**
 * 8.3's days as grouped bars, drawn as SVG on the server: the console sends no script and takes
 * nothing from elsewhere. Colours are attributes, not styles, so the page's style policy holds;
 * each bar carries its number as a title, for screen readers and on hover.
 */
export function DayChart(props: { days: readonly ChartDay[]; timeZone: string }) {
  const { days } = props;
  const most = Math.max(1, ...days.flatMap((day) => SERIES.map(([key]) => day[key])));
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(1, days.length);
  const y = (value: number) => TOP + plotHeight - (value / most) * plotHeight;
  const label = new Intl.DateTimeFormat("en-CA", {
    timeZone: props.timeZone,
    month: "2-digit",
    day: "2-digit",
  });
  const ticks = [...new Set([0, Math.round(most / 2), most])];
  return (
    <figure class="chart">
      <svg
        xmlns="http://www.w3.org/2000/svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width={WIDTH}
        height={HEIGHT}
        role="img"
        aria-label="Processes started, completed and killed per day"
      >
        {ticks.map((tick) => (
          <g>
            <line x1={LEFT} x2={WIDTH} y1={y(tick)} y2={y(tick)} stroke="#d0d0d0" stroke-width="1" />
            <text x={LEFT - 6} y={y(tick) + 4} text-anchor="end" font-size="11" fill="#555">
              {tick}
            </text>
          </g>
        ))}
        {days.map((day, index) => {
          const x = LEFT + index * slot + (slot - BAR * SERIES.length) / 2;
          const date = label.format(new Date(day.time * 1000));
          return (
            <g data-day={day.time}>
              {SERIES.map(([key, name, colour], n) => (
                <rect
                  class={`bar ${key}`}
                  x={x + n * BAR}
                  y={y(day[key])}
                  width={BAR - 2}
                  height={TOP + plotHeight - y(day[key])}
                  fill={colour}
                >
                  <title>{`${date}: ${day[key]} ${name.toLowerCase()}`}</title>
                </rect>
              ))}
              <text
                x={x + (BAR * SERIES.length) / 2}
                y={HEIGHT - 10}
                text-anchor="middle"
                font-size="11"
                fill="#333"
              >
                {date}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        {SERIES.map(([, name, colour]) => (
          <span class="legend">
            <svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" fill={colour} />
            </svg>{" "}
            {name}{" "}
          </span>
        ))}
        <span class="muted">per day in {props.timeZone}, every app</span>
      </figcaption>
    </figure>
  );
}
