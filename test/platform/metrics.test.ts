import assert from "node:assert/strict";
import { startWorker } from "../../bin/processes.ts";
import { loadConfig } from "../../runtime/config.ts";
import { startMetricsServer } from "../../runtime/metrics-server.ts";
import { metricSamples } from "../support/metric-samples.ts";
import {
  freePort,
  startTestPlatform,
  type TestPlatform,
  tempDir,
  testModes,
  withBootstrap,
} from "../support/platform.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { issueToken } from "../support/tokens.ts";
import { silentLogger, waitFor } from "../support/wait.ts";

const NOT_READY = { status: "not ready", database: false, broker: true, draining: false } as const;

const APP = { id: "metrics-app", secret: "metrics-app-secret-0123456789abcdefghij" };
const METRICS_TOKEN = "scraper-token-0123456789";

async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return metricSamples(await response.text());
}

/** How much a series grew between two scrapes (the registry is shared by every platform of this process). */
function grew(before: Map<string, number>, after: Map<string, number>, series: string): number {
  return (after.get(series) ?? 0) - (before.get(series) ?? 0);
}

/** A refused scrape: 401 in the platform's envelope, asking for the scraper's token. */
async function assertClosed(response: Response, message: RegExp): Promise<void> {
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="metrics"');
  const body = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(
    { ...body, error: undefined },
    {
      errno: 10007,
      ecode: "UNAUTHENTICATED",
      error: undefined,
      total: 0,
      entities: [],
    },
  );
  assert.match(String(body.error), message);
}

const CLOSED = /set METRICS_TOKEN .*or set METRICS_PUBLIC=true/;

describe("/metrics without METRICS_TOKEN", () => {
  const stops: (() => Promise<void>)[] = [];
  let closed: TestPlatform;
  let open: TestPlatform;

  before(async () => {
    for (const opened of [false, true]) {
      const dir = await tempDir();
      stops.push(dir.remove);
      const platform = await startTestPlatform({
        DATA_DIR: dir.path,
        ...(opened ? { METRICS_PUBLIC: "true" } : {}),
      });
      stops.unshift(platform.stop);
      if (opened) open = platform;
      else closed = platform;
    }
  });

  after(async () => {
    for (const stop of stops) await stop();
  });

  it("is closed unless the operator opens it: 401 saying to set METRICS_TOKEN or METRICS_PUBLIC", async () => {
    await assertClosed(await fetch(`${closed.url}/metrics`), CLOSED);
    await assertClosed(
      await fetch(`${closed.url}/metrics`, { headers: { authorization: "Bearer anything-at-all-0123" } }),
      CLOSED,
    );
    const opened = await fetch(`${open.url}/metrics`);
    assert.equal(opened.status, 200);
    assert.match(await opened.text(), /^# (HELP|TYPE) /m);
  });

  it("a worker's /metrics follows the same rule, and its /readyz answers 503 while it is not ready", async () => {
    for (const [access, status] of [
      [{ token: undefined, open: false }, 401],
      [{ token: undefined, open: true }, 200],
      [{ token: METRICS_TOKEN, open: true }, 401],
    ] as const) {
      const server = await startMetricsServer(
        { port: 0, host: "127.0.0.1", readiness: async () => NOT_READY, ...access },
        silentLogger,
      );
      try {
        const readyz = await fetch(`http://127.0.0.1:${server.port}/readyz`);
        assert.equal(readyz.status, 503);
        assert.deepEqual(await readyz.json(), NOT_READY);
        const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
        if (status === 200) {
          assert.equal(response.status, 200, JSON.stringify(access));
          await response.arrayBuffer();
        } else await assertClosed(response, access.token ? /needs its operator token/ : CLOSED);
      } finally {
        await server.close();
      }
    }
  });
});

for (const mode of await testModes()) {
  describe(`/metrics (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let app: RecordingServer;
    let env: Record<string, string>;
    let cleanup: () => Promise<void>;

    before(async () => {
      // The campus app refuses every message to "broken-*" accounts, so those tasks retry, then die.
      app = await RecordingServer.start((request) =>
        request.body.includes("broken-")
          ? { status: 500, body: { error: "down" } }
          : { status: 200, body: { id: "push" } },
      );
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      env = {
        ...(await withBootstrap(prepared.env, {
          applications: [{ ...APP, name: "Metrics", scopes: ["send_app_notification", "notifications"] }],
          channels: [
            {
              name: "app",
              plugin: "app",
              config: { baseUrl: app.url, token: "t" },
              permittedApplications: [APP.id],
            },
          ],
        })),
        METRICS_TOKEN,
        NOTIFY_RETRY_DELAYS_MS: "100",
      };
      platform = await startTestPlatform(env);
    });

    after(async () => {
      await platform.stop();
      await app.close();
      await cleanup();
    });

    it("asks for the scraper's token when one is set", async () => {
      const bare = await fetch(`${platform.url}/metrics`);
      assert.equal(bare.status, 401);
      const wrong = await fetch(`${platform.url}/metrics`, { headers: { authorization: "Bearer nope" } });
      assert.equal(wrong.status, 401);
    });

    it("counts requests per route pattern and status, jobs per queue by outcome, and reports queues", async () => {
      const first = await scrape(platform.url);
      const token = await issueToken(platform.url, APP, {
        grant_type: "client_credentials",
        scope: "send_app_notification",
      });
      const sent = await fetch(`${platform.url}/v1/notification?access_token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["app"], accounts: ["fine-1"], name: "Fine" }),
      });
      assert.equal(sent.status, 200);
      const failing = await fetch(`${platform.url}/v1/notification?access_token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["app"], accounts: ["broken-1"], name: "Broken" }),
      });
      assert.equal(failing.status, 200);
      assert.equal((await fetch(`${platform.url}/no/such/route/42`)).status, 404);
      assert.equal((await fetch(`${platform.url}/notification/status?id=x`)).status, 401);
      // Two attempts of the broken one (the first, one retry), one of the fine one.
      await waitFor(() => app.requests.length >= 3, 20_000, "both notifications attempted");

      let last = first;
      await waitFor(
        async () => {
          last = await scrape(platform.url);
          return grew(first, last, 'jobs_total{queue="notify.app",outcome="dead"}') >= 1;
        },
        20_000,
        "the broken notification's job dead-lettered",
      );
      const put = 'method="PUT",route="/v1/notification"';
      assert.equal(grew(first, last, `http_requests_total{${put},status="200"}`), 2);
      assert.equal(grew(first, last, `http_request_duration_seconds_count{${put}}`), 2);
      assert.equal(grew(first, last, `http_request_duration_seconds_bucket{${put},le="+Inf"}`), 2);
      assert.equal(grew(first, last, 'http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
      assert.equal(
        grew(first, last, 'http_requests_total{method="GET",route="/notification/status",status="401"}'),
        1,
      );
      assert.ok(
        ![...last.keys()].some((series) => series.includes("/no/such/route")),
        "raw paths never become series",
      );
      assert.equal(grew(first, last, 'jobs_total{queue="notify.app",outcome="done"}'), 1);
      assert.equal(grew(first, last, 'jobs_total{queue="notify.app",outcome="retry"}'), 1);
      assert.equal(grew(first, last, 'jobs_total{queue="notify.app",outcome="dead"}'), 1);
      assert.ok(grew(first, last, 'job_duration_seconds_count{queue="notify.app"}') >= 3);
      assert.equal(last.get('queue_messages{queue="notify.app",state="ready"}'), 0);
      assert.equal(last.get('jobs_in_progress{queue="notify.app"}'), 0, "no handler left running");
      assert.ok((last.get('queue_messages{queue="notify.app",state="dead"}') ?? 0) >= 1);
      assert.ok((last.get('queue_consumers{queue="notify.app"}') ?? 0) >= 1);
      assert.equal(last.get("broker_connected"), 1);
      assert.ok((last.get("process_resident_memory_bytes") ?? 0) > 10_000_000);
    });

    if (mode.name === "distributed") {
      it("a worker process serves its own /metrics, /healthz and /readyz on METRICS_PORT", async () => {
        const port = await freePort();
        const worker = await startWorker(
          loadConfig({ ...env, METRICS_PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "silent" }),
          ["files.thumbs"],
        );
        try {
          const url = `http://127.0.0.1:${port}`;
          assert.equal((await fetch(`${url}/healthz`)).status, 200);
          const ready = await fetch(`${url}/readyz`);
          assert.equal(ready.status, 200);
          assert.equal(ready.headers.get("x-content-type-options"), "nosniff");
          assert.deepEqual(await ready.json(), {
            status: "ready",
            database: true,
            broker: true,
            draining: false,
          });
          assert.equal((await fetch(`${url}/metrics`)).status, 401);
          const scraped = await scrape(url);
          assert.ok(
            (scraped.get('queue_consumers{queue="files.thumbs"}') ?? 0) >= 2,
            "its consumer and the platform's",
          );
          assert.equal((await fetch(`${url}/v1/notification`)).status, 404);
        } finally {
          await worker.stop();
        }
        await assert.rejects(
          fetch(`http://127.0.0.1:${port}/healthz`),
          "stops serving when the worker stops",
        );
      });
    }
  });
}
