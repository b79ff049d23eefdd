import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import type { Sql } from "../../runtime/database.ts";
import { localHourStart } from "../../workflow/statistics/local-hour.ts";
import { emptyHour } from "../../workflow/statistics/statistics-deltas.ts";
import { addToHours } from "../../workflow/statistics/statistics-store.ts";
import { consoleCookie } from "../support/console-session.ts";
import { startTestPlatform, type TestPlatform, tempDir, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { CHROMIUM, CHROMIUM_PATH, missingSystemPackages } from "../support/system-requirements.ts";
import { formOnlyWorkflow } from "../support/workflow-graphs.ts";

/**
 * The console's statistics page over plain HTTP, and in a browser where Chromium is installed: a
 * tenant's 8.3 by day is drawn as an SVG chart in the page (no script, nothing from elsewhere),
 * each bar as tall as its count and titled with it.
 */

const ADMIN_TOKEN = "console-stats-operator-token-0123456789ab";

describe("the console's statistics page", () => {
  let platform: TestPlatform;
  let removeDir: () => Promise<void>;
  let sql: Sql;
  let cookie = "";
  const at = (path: string) => `${platform.url}${path}`;
  const page = (path: string) => fetch(at(path), { headers: { cookie } });

  before(async () => {
    const dir = await tempDir();
    removeDir = dir.remove;
    platform = await startTestPlatform(
      {
        ...(await withBootstrap(
          { DATA_DIR: dir.path },
          {
            tenants: [
              {
                domain: "example.edu",
                name: "Example University",
                workflow: { statistics: { on: true, timeZone: "Europe/Paris" } },
              },
            ],
            workflows: [formOnlyWorkflow("example.edu", "leave", "HR")],
          },
        )),
        ADMIN_TOKEN,
      },
      "http only",
    );
    sql = platform.running.platform.db.sql;
    cookie = await consoleCookie(platform.url, ADMIN_TOKEN);
  });
  after(async () => {
    await platform?.stop();
    await removeDir?.();
  });

  it("draws the processes started, completed and killed per day as a chart", async () => {
    const [app] = await sql<{ id: string; tenantId: string }[]>`
      select id, tenant_id as "tenantId" from workflow_apps where code = 'leave'`;
    const hour = localHourStart(new Date(), "Europe/Paris");
    await addToHours(
      sql,
      [
        {
          ...emptyHour({ tenantId: app!.tenantId, test: false, appId: app!.id, hour }),
          started: 4,
          completed: 2,
          killed: 1,
        },
      ],
      new Map([[app!.tenantId, "Europe/Paris"]]),
    );

    const response = await page("/console/tenants/statistics?domain=example.edu");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-security-policy")!, /default-src 'none'/);
    const html = await response.text();
    assert.match(html, /<svg[^>]*role="img"/);
    assert.doesNotMatch(html, /<script|<table/);
    assert.equal(html.match(/<g data-day=/g)?.length, 7, "the 7 days of 8.3's default");
    const bar = (series: string) => {
      const found = new RegExp(
        `<rect class="bar ${series}"[^>]*height="([\\d.]+)"[^>]*><title>[^<]*: (\\d+) ${series}</title>`,
        "g",
      );
      return [...html.matchAll(found)].map((match) => ({
        height: Number(match[1]),
        count: Number(match[2]),
      }));
    };
    const today = (series: string) => bar(series).at(-1)!;
    assert.deepEqual(
      ["started", "completed", "killed"].map((series) => today(series).count),
      [4, 2, 1],
    );
    assert.equal(today("started").height, 2 * today("completed").height);
    assert.equal(today("completed").height, 2 * today("killed").height);
    assert.ok(
      bar("started")
        .slice(0, 6)
        .every((earlier) => earlier.count === 0 && earlier.height === 0),
    );
    assert.match(html, /Statistics are kept \(Europe\/Paris\)/);
    assert.match(html, /href="\/console\/tenants\/statistics\?domain=example\.edu&amp;test=1"/);
  });

  it("shows the chart in a browser, its bars drawn under the console's content policy", {
    skip: missingSystemPackages(CHROMIUM),
  }, async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ["--headless", "--no-sandbox"],
    });
    try {
      const context = await browser.newContext();
      const [name, value] = cookie.split("=") as [string, string];
      await context.addCookies([{ name, value, url: at("/console") }]);
      const page = await context.newPage();
      const refused: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      await page.goto(at("/console/tenants/statistics?domain=example.edu"));
      const chart = await page.locator("svg[role=img]").boundingBox();
      assert.ok(chart && chart.width > 300 && chart.height > 100, `chart box ${JSON.stringify(chart)}`);
      assert.equal(await page.locator("rect.bar").count(), 21);
      const started = await page.locator("rect.bar.started").last().boundingBox();
      const killed = await page.locator("rect.bar.killed").last().boundingBox();
      assert.ok(started && killed && started.height > 3 * killed.height, "bars as tall as their counts");
      assert.deepEqual(refused, []);
    } finally {
      await browser.close();
    }
  });

  it("answers a page for a tenant there is not", async () => {
    const response = await page("/console/tenants/statistics?domain=nowhere.edu");
    assert.equal(response.status, 404);
    assert.match(await response.text(), /no tenant nowhere\.edu/);
  });
});
