import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import {
  APP,
  bpmnOf,
  type ConsoleWorkflowWorld,
  consoleWorkflowWorld,
  reviewDefinition,
  startReview,
  TENANT,
  withTimer,
} from "../support/console-workflow-world.ts";
import { testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { CHROMIUM, CHROMIUM_PATH, missingSystemPackages } from "../support/system-requirements.ts";

/**
 * The console's workflow pages in Chromium, in both running modes: a BPMN file deployed through
 * the form and its diagram drawn by the bpmn-js viewer the console serves, a running process with
 * its current step marked, a task reassigned, a refused file's element named; nothing refused by
 * the content policy.
 */

const noChromium = missingSystemPackages(CHROMIUM);

for (const mode of await testModes()) {
  describe(`the console's workflow pages in a browser (${mode.name})`, {
    skip: noChromium || mode.skip,
  }, () => {
    let world: ConsoleWorkflowWorld;
    let browser: Browser;
    let page: Page;
    const refused: string[] = [];
    const at = (path: string) => `${world.platform.url}${path}`;

    before(async () => {
      world = await consoleWorkflowWorld(mode);
      browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: ["--headless", "--no-sandbox"],
      });
      const context = await browser.newContext();
      const [name, value] = world.cookie.split("=") as [string, string];
      await context.addCookies([{ name, value, url: at("/console") }]);
      page = await context.newPage();
      page.on("console", (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
      });
      page.on("pageerror", (error) => refused.push(error.message));
    });
    after(async () => {
      await browser?.close();
      await world?.close();
    });

    /** Waits for the page's diagram to be drawn, answering the ids of the elements drawn. */
    async function drawnIds(): Promise<string[]> {
      await page.waitForSelector(".diagram[data-state]");
      assert.equal(await page.getAttribute(".diagram", "data-state"), "drawn");
      return page.$$eval(".diagram svg [data-element-id]", (elements) =>
        elements.map((element) => element.getAttribute("data-element-id")!),
      );
    }

    async function deploy(code: string, name: string, file: string) {
      await page.goto(at(`/console/workflows?tenant=${TENANT}`));
      await page.fill("#deploy-code", code);
      await page.setInputFiles("#deploy-file", {
        name,
        mimeType: "application/xml",
        buffer: Buffer.from(file),
      });
      await page.check("#deploy-online");
      await page.click('button:text-is("Deploy")');
      await page.waitForSelector(".flash");
    }

    it("deploys a BPMN file through the console and draws its diagram", async () => {
      await deploy("drawn", "drawn.bpmn", await bpmnOf(reviewDefinition(["fox"], "check"), "drawn"));
      assert.equal((await page.textContent("[role=status]"))?.trim(), "Version 1 of drawn is deployed.");
      const section = page.locator("section.workflow-app", {
        has: page.locator("code", { hasText: "drawn" }),
      });
      await Promise.all([
        page.waitForURL(/\/diagram\?/),
        section.locator(`a:text-is("Diagram")`).first().click(),
      ]);
      const ids = await drawnIds();
      for (const id of ["apply", "review", "check", "done"]) assert.ok(ids.includes(id), `${id} drawn`);
      const box = await page.locator(".diagram svg").first().boundingBox();
      assert.ok(box && box.width > 200 && box.height > 100, `diagram box ${JSON.stringify(box)}`);
      assert.deepEqual(refused, []);
    });

    it("shows the element a refused file names", async () => {
      await deploy("timed", "timed.bpmn", withTimer(await bpmnOf(reviewDefinition(["fox"]), "timed")));
      assert.match((await page.textContent("[role=alert]")) ?? "", /Timer_1 \(bpmn:IntermediateCatchEvent\)/);
    });

    it("marks a running process's current step, and moves a reassigned task to its new handlers", async () => {
      const { id } = await startReview(world.sql, "walter");
      await page.goto(at(`/console/workflows/processes/${id}`));
      const ids = await drawnIds();
      assert.ok(ids.includes("review"));
      await page.waitForSelector('.djs-element.op-current[data-element-id="review"]');
      assert.equal(await page.locator(".djs-element.op-current").count(), 1);
      const stroke = await page
        .locator('.djs-element.op-current[data-element-id="review"] .djs-visual > :first-child')
        .evaluate((shape) => shape.ownerDocument.defaultView!.getComputedStyle(shape).stroke);
      assert.equal(stroke, "rgb(230, 81, 0)", "drawn in the current step's colour");
      assert.deepEqual(
        await page.$$eval("td.handlers li", (items) => items.map((item) => item.dataset.account)),
        ["dana"],
      );

      const row = page.locator("tr[data-task]");
      await row.locator("input[name=accounts]").fill("fox");
      await row.locator("input[name=confirm]").check();
      await Promise.all([
        page.waitForURL(at(`/console/workflows/processes/${id}`)),
        row.locator(`button:text-is("Reassign")`).click(),
      ]);
      assert.equal((await page.textContent("[role=status]"))?.trim(), "The task is given to fox.");
      assert.deepEqual(
        await page.$$eval("td.handlers li", (items) => items.map((item) => item.dataset.account)),
        ["fox"],
      );
      await drawnIds();
      await page.waitForSelector('.djs-element.op-current[data-element-id="review"]');
      const [task] = await world.sql<{ candidates: string[] }[]>`
        select array(select account from users where id = any(t.candidates)) as candidates
        from workflow_tasks t where t.process_id = ${id} and t.status = 'todo'`;
      assert.deepEqual(task!.candidates, ["fox"]);
      assert.deepEqual(refused, []);
    });

    it("lists the app's processes and opens one from the search", async () => {
      const { entry } = await startReview(world.sql, "dana");
      await page.goto(at(`/console/workflows/processes?tenant=${TENANT}&app=${APP}&owner=dana`));
      await Promise.all([page.waitForURL(/\/processes\/[0-9a-f-]{36}$/), page.click(`text="${entry}"`)]);
      assert.equal(await page.textContent("h1"), `Process ${entry}`);
      await drawnIds();
    });
  });
}
