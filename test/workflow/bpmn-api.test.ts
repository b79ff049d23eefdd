import assert from "node:assert/strict";
import { importBpmn } from "../../workflow/bpmn/bpmn-import.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import {
  portalApplication,
  portalUserTokens,
  WORKFLOW_PASSWORD,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

/**
 * Versions deployed from BPMN 2.0 over the admin API (docs/bpmn.md): an XML body, a `bpmn` field,
 * the bootstrap file; what the BPMN cannot say refused naming the element; and every version
 * answered as BPMN that deploys again as the same version.
 */

const ADMIN_TOKEN = "bpmn-api-admin-token-0123456789abcdefghij";
const SECRET = "bpmn-api-secret-0123456789abcdefghijklmno";
const USER_SCOPES = "start submit process task";
const ACCOUNTS = ["alice", "bob", "carol"] as const;

/** The initiator applies, bob reviews (approve or reject), then the end; drawn as a modeler would. */
function leave(reviewer = "bob", extra = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:di="http://www.omg.org/spec/DD/20100524/DI" xmlns:op="http://open-platform/schema/bpmn/1.0" id="Definitions_leave" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="Process_leave" isExecutable="true">
    <bpmn:extensionElements>
      <op:field name="days" type="number" required="true" />
    </bpmn:extensionElements>
    <bpmn:startEvent id="apply" name="Apply" />
    <bpmn:userTask id="review" name="Review">
      <bpmn:extensionElements>
        <op:assignee><op:account name="${reviewer}" /></op:assignee>
      </bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:endEvent id="done" name="Done" />
    <bpmn:sequenceFlow id="f1" sourceRef="apply" targetRef="review" />
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="done" />${extra}
  </bpmn:process>
  <bpmndi:BPMNDiagram id="Diagram_leave">
    <bpmndi:BPMNPlane id="Plane_leave" bpmnElement="Process_leave">
      <bpmndi:BPMNShape id="apply_di" bpmnElement="apply"><dc:Bounds x="152" y="102" width="36" height="36" /></bpmndi:BPMNShape>
      <bpmndi:BPMNShape id="review_di" bpmnElement="review"><dc:Bounds x="240" y="80" width="100" height="80" /></bpmndi:BPMNShape>
      <bpmndi:BPMNShape id="done_di" bpmnElement="done"><dc:Bounds x="402" y="102" width="36" height="36" /></bpmndi:BPMNShape>
      <bpmndi:BPMNEdge id="f1_di" bpmnElement="f1"><di:waypoint x="188" y="120" /><di:waypoint x="240" y="120" /></bpmndi:BPMNEdge>
      <bpmndi:BPMNEdge id="f2_di" bpmnElement="f2"><di:waypoint x="340" y="120" /><di:waypoint x="402" y="120" /></bpmndi:BPMNEdge>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>`;
}

/** The same graph as the JSON of docs/workflows.md. */
const leaveJson = {
  schema: { fields: [{ name: "days", type: "number", required: true }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply", name: "Apply" },
      { kind: "task", code: "review", name: "Review", assignees: [{ accounts: ["carol"] }] },
      { kind: "end", code: "done", name: "Done" },
    ],
    edges: [
      { from: "apply", to: "review" },
      { from: "review", to: "done" },
    ],
  },
};

interface Deployed {
  app: string;
  version: string;
  number: number;
  created: boolean;
}

for (const mode of await testModes()) {
  describe(`BPMN over the admin API (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    const tokens: Record<string, string> = {};
    const api = new WorkflowClient(() => platform!.url, ADMIN_TOKEN);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const versions = (code: string) => `${platform!.url}/admin/workflows/example.edu/${code}/versions`;

    async function deployXml(code: string, xml: string, query = "online=true"): Promise<Response> {
      return fetch(`${versions(code)}?${query}`, {
        method: "PUT",
        headers: { ...admin, "content-type": "application/xml" },
        body: xml,
      });
    }

    async function deployed(answer: Response): Promise<Deployed> {
      const text = await answer.text();
      assert.equal(answer.status, 200, text);
      return JSON.parse(text) as Deployed;
    }

    async function exported(code: string, version: string): Promise<string> {
      const answer = await fetch(`${versions(code)}/${version}/bpmn`, { headers: admin });
      const text = await answer.text();
      assert.equal(answer.status, 200, text);
      assert.match(answer.headers.get("content-type") ?? "", /^application\/xml/);
      return text;
    }

    /** alice starts a process of `code`: its first to-do is her form; handed in, bob's review. */
    async function runs(code: string, reviewer = "bob"): Promise<void> {
      const started = await api.ok("PUT", "/process", tokens.alice!, {
        code,
        data: JSON.stringify({ days: 2 }),
      });
      const [entry, , , first] = started.entities as unknown as [number, number, string, { id: string }];
      const mine = await api.ok<{ id: string }>("GET", "/me/tasks/todo", tokens.alice!);
      assert.ok(
        mine.entities.some((task) => task.id === first.id),
        "the initiator's form is her to-do",
      );
      await api.ok("POST", `/task/${first.id}`, tokens.alice!);
      const theirs = await api.ok<{ process: { entry: number } }>("GET", "/me/tasks/todo", tokens[reviewer]!);
      assert.ok(
        theirs.entities.some((task) => task.process.entry === entry),
        `the review is ${reviewer}'s to-do`,
      );
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: WORKFLOW_TENANTS,
        applications: [portalApplication(SECRET, USER_SCOPES.split(" "))],
        users: ACCOUNTS.map((account) => ({
          tenant: "example.edu",
          account,
          name: account,
          password: WORKFLOW_PASSWORD,
        })),
        workflows: [
          {
            tenant: "example.edu",
            code: "booted",
            name: "Booted",
            versions: [{ bpmn: leave(), online: true }],
          },
        ],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      Object.assign(tokens, await portalUserTokens(platform.url, SECRET, ACCOUNTS, USER_SCOPES));
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("deploys an XML body, online as the query says, and the version runs", async () => {
      const first = await deployed(await deployXml("leave", leave()));
      assert.equal(first.created, true);
      assert.equal(first.number, 1);
      await runs("leave");
      const again = await deployed(await deployXml("leave", leave()));
      assert.deepEqual(again, { ...first, created: false });
      // Deployed again without saying whether it is online, the version stays as it is.
      const quiet = await deployed(await deployXml("leave", leave(), ""));
      assert.deepEqual(quiet, { ...first, created: false });
      await runs("leave");
      assert.equal((await deployXml("leave", leave(), "online=false")).status, 200);
      const stopped = await api.call("PUT", "/process", tokens.alice!, { code: "leave" });
      assert.equal(stopped.body.ecode, "APP_NOT_STARTABLE", "online=false takes it off line");
    });

    it("takes the XML media types modelers send", async () => {
      for (const type of ["text/xml", "application/bpmn+xml; charset=utf-8"]) {
        const answer = await fetch(`${versions("typed-xml")}?online=true`, {
          method: "PUT",
          headers: { ...admin, "content-type": type },
          body: leave(),
        });
        assert.equal(answer.status, 200, `${type}: ${await answer.text()}`);
      }
    });

    it("deploys a bpmn field of a JSON body", async () => {
      const answer = await api.deploy("example.edu", "leave-json-body", {
        bpmn: leave(),
        online: true,
        app: { name: "Leave" },
      });
      assert.equal((await deployed(answer)).created, true);
      await runs("leave-json-body");
    });

    it("refuses a version with both a definition and a bpmn document, or neither", async () => {
      const both = await api.deploy("example.edu", "both", { bpmn: leave(), definition: leaveJson });
      assert.equal(both.status, 400, await both.text());
      const neither = await api.deploy("example.edu", "neither", { online: true });
      assert.equal(neither.status, 400, await neither.text());
    });

    it("answers 400 naming an unsupported element", async () => {
      const script = '\n    <bpmn:scriptTask id="Activity_script" name="Compute" />';
      const answer = await deployXml("refused", leave("bob", script));
      const text = await answer.text();
      assert.equal(answer.status, 400, text);
      assert.match(text, /Activity_script/);
      const broken = await deployXml("refused", "<bpmn:definitions");
      assert.equal(broken.status, 400, await broken.text());
      const empty = await deployXml("refused", "");
      const emptyText = await empty.text();
      assert.equal(empty.status, 400, emptyText);
      assert.match(emptyText, /bpmn/);
      const later = await deployed(await deployXml("refused", leave()));
      assert.deepEqual([later.number, later.created], [1, true], "nothing was deployed before");
    });

    it("answers a BPMN-made version as BPMN with its diagram, which deploys as the same version", async () => {
      const first = await deployed(await deployXml("drawn", leave()));
      const xml = await exported("drawn", first.version);
      const sent = await importBpmn(leave());
      const back = await importBpmn(xml);
      assert.deepEqual(back.definition, sent.definition);
      assert.deepEqual(back.layout, sent.layout, "the diagram it was deployed with");
      assert.deepEqual(await deployed(await deployXml("drawn", xml)), { ...first, created: false });
    });

    it("answers a JSON-made version as BPMN laid out anew, which deploys as the same version", async () => {
      const first = await deployed(
        await api.deploy("example.edu", "typed", { definition: leaveJson, online: true }),
      );
      const xml = await exported("typed", first.version);
      const back = await importBpmn(xml);
      assert.ok(back.layout, "a layout is generated");
      for (const node of ["apply", "review", "done"]) assert.ok(back.layout.shapes[node], node);
      assert.deepEqual(await deployed(await deployXml("typed", xml)), { ...first, created: false });
      await runs("typed", "carol");
    });

    it("answers 404 for a version of another app", async () => {
      const first = await deployed(await deployXml("drawn", leave()));
      const answer = await fetch(`${versions("typed")}/${first.version}/bpmn`, { headers: admin });
      assert.equal(answer.status, 404, await answer.text());
    });

    it("applies a bootstrap file's bpmn version", async () => {
      await runs("booted");
      const again = await deployed(await deployXml("booted", leave()));
      assert.equal(again.created, false);
      assert.equal(again.number, 1);
    });
  });
}
