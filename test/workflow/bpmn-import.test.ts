import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { deployableDefinitionSchema } from "../../contracts/deployable-definition.ts";
import { importBpmn } from "../../workflow/bpmn/bpmn-import.ts";

const camunda = await readFile("test/fixtures/bpmn/camunda-approval.bpmn", "utf8");

/** The fixture's process as the platform's JSON graph. */
const equivalent = deployableDefinitionSchema.parse({
  schema: {
    fields: [
      { name: "days", type: "number", required: true },
      { name: "reviewers", type: "users" },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "StartEvent_1", name: "Apply" },
      {
        kind: "task",
        code: "Activity_head",
        name: "Head",
        assignees: [{ position: "{initiator}:head" }],
        cc: [{ initiator: true }],
        actions: [
          { id: 1, code: "approve", name: "Approve" },
          { id: 2, code: "reject", name: "Reject", remarkRequired: true },
        ],
      },
      { kind: "exclusive", code: "Gateway_long" },
      { kind: "parallel", code: "Gateway_split" },
      {
        kind: "task",
        code: "Activity_dean",
        name: "Dean",
        assignees: [{ accounts: ["dean"] }],
        mode: "sequential",
      },
      { kind: "subprocess", code: "Activity_archive", name: "Archive", workflow: "archive" },
      { kind: "join", code: "Gateway_join", split: "Gateway_split" },
      {
        kind: "task",
        code: "Activity_review",
        name: "Review",
        assignees: [{ field: "reviewers" }],
        mode: "all",
      },
      { kind: "end", code: "Event_end", name: "Done" },
    ],
    edges: [
      { from: "StartEvent_1", to: "Activity_head" },
      { from: "Activity_head", to: "Gateway_long", action: "approve" },
      { from: "Gateway_long", to: "Gateway_split", condition: "days > 3" },
      { from: "Gateway_long", to: "Activity_review", default: true },
      { from: "Gateway_split", to: "Activity_dean" },
      { from: "Gateway_split", to: "Activity_archive" },
      { from: "Activity_dean", to: "Gateway_join" },
      { from: "Activity_archive", to: "Gateway_join" },
      { from: "Gateway_join", to: "Activity_review" },
      { from: "Activity_review", to: "Event_end" },
    ],
  },
});

/** The fixture with one element more, put before the end event. */
const withElement = (xml: string) =>
  camunda.replace('<bpmn:endEvent id="Event_end"', `${xml}\n<bpmn:endEvent id="Event_end"`);

async function refusal(xml: string): Promise<string> {
  const error = await importBpmn(xml).then(
    () => assert.fail("imported"),
    (caught: Error) => caught,
  );
  return error.message;
}

describe("BPMN import", () => {
  it("compiles a Camunda Modeler file with every supported element into the equivalent JSON graph, keeping its diagram", async () => {
    const imported = await importBpmn(camunda);
    assert.deepEqual(JSON.parse(JSON.stringify(imported.definition)), JSON.parse(JSON.stringify(equivalent)));
    assert.deepEqual(imported.layout?.shapes.StartEvent_1, {
      x: 152,
      y: 102,
      width: 36,
      height: 36,
      label: { x: 156, y: 145, width: 29, height: 14 },
    });
    assert.equal(imported.layout?.edges[2]?.id, "Flow_long");
    assert.equal(imported.layout?.edges[2]?.waypoints.length, 3);
  });

  it("refuses each element the engine cannot run, naming its id and type", async () => {
    const unsupported: [string, string][] = [
      ['<bpmn:scriptTask id="Script_1" />', "Script_1 (bpmn:ScriptTask)"],
      ['<bpmn:serviceTask id="Service_1" />', "Service_1 (bpmn:ServiceTask)"],
      ['<bpmn:inclusiveGateway id="Inclusive_1" />', "Inclusive_1 (bpmn:InclusiveGateway)"],
      ['<bpmn:subProcess id="Sub_1" />', "Sub_1 (bpmn:SubProcess)"],
      [
        '<bpmn:intermediateCatchEvent id="Timer_1"><bpmn:timerEventDefinition /></bpmn:intermediateCatchEvent>',
        "Timer_1 (bpmn:IntermediateCatchEvent)",
      ],
      [
        '<bpmn:boundaryEvent id="Boundary_1" attachedToRef="Activity_head"><bpmn:timerEventDefinition /></bpmn:boundaryEvent>',
        "Boundary_1 (bpmn:BoundaryEvent)",
      ],
      [
        '<bpmn:endEvent id="MessageEnd_1"><bpmn:messageEventDefinition /></bpmn:endEvent>',
        "MessageEnd_1 (bpmn:EndEvent)",
      ],
    ];
    for (const [xml, named] of unsupported) {
      const message = await refusal(withElement(xml));
      assert.match(message, new RegExp(named.replace(/[()]/g, "\\$&")), message);
    }
  });

  it("refuses a condition that does not parse, naming the sequence flow", async () => {
    const message = await refusal(camunda.replace("${days &gt; 3}", "${days &gt;&gt; 3}"));
    assert.match(message, /Flow_long \(bpmn:SequenceFlow\): its condition does not parse/);
  });

  it("refuses list fields nested deeper than a definition holds, however deep, naming the field", async () => {
    const nested = (depth: number) =>
      Array.from({ length: depth }, (_, i) => `<op:field name="level${depth - i}" type="list">`).join("") +
      '<op:field name="leaf" type="text" />' +
      "</op:field>".repeat(depth);
    const deep = (depth: number) =>
      camunda.replace(
        '<op:field name="reviewers" type="users" />',
        `<op:field name="reviewers" type="users" />${nested(depth)}`,
      );
    // Eight lists deep is a definition's most; the nesting a document may hold goes far beyond.
    assert.equal(
      (await importBpmn(deep(7))).definition.schema.fields.length,
      3,
      "seven lists and their leaf are eight levels",
    );
    for (const depth of [8, 20_000])
      assert.match(await refusal(deep(depth)), /field level\d+: list fields nest at most 8 deep/);
    // The same rule for a definition given as JSON.
    const listOf = (depth: number): object =>
      depth === 0
        ? { name: "leaf", type: "text" }
        : { name: `level${depth}`, type: "list", fields: [listOf(depth - 1)] };
    const json = (depth: number) =>
      deployableDefinitionSchema.safeParse({
        ...equivalent,
        schema: { fields: [...equivalent.schema.fields, listOf(depth)] },
      });
    assert.equal(json(7).success, true);
    assert.match(JSON.stringify(json(8).error?.issues), /list fields nest at most 8 deep/);
  });

  it("names the element and its property a rule refuses", async () => {
    const message = await refusal(
      camunda.replace(
        '<bpmn:userTask id="Activity_head" name="Head" camunda:assignee="ignored">',
        '<bpmn:userTask id="Activity_head" name="Head" op:expiresInSeconds="-5">',
      ),
    );
    assert.match(message, /^bpmn: element Activity_head, expiresInSeconds: /);
  });

  it("refuses a document type declaration before parsing", async () => {
    const bomb = camunda.replace(
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>',
    );
    assert.match(await refusal(bomb), /document type or entity/);
  });
});
