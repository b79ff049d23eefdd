import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { workflowDefinitionSchema } from "../../contracts/workflow-definition.ts";
import { definitionDigest } from "../../workflow/app-store.ts";
import { importBpmn } from "../../workflow/bpmn/bpmn-import.ts";

const example = (name: string) => readFile(new URL(`../../examples/${name}`, import.meta.url), "utf8");

describe("the leave request as BPMN", () => {
  it("imports as the same definition as the JSON example, drawn with its diagram", async () => {
    const json = workflowDefinitionSchema.parse(JSON.parse(await example("leave-request.workflow.json")));
    const { definition, layout } = await importBpmn(await example("leave-request.bpmn"));
    assert.equal(definitionDigest(definition), definitionDigest(json));
    assert.deepEqual(
      Object.keys(layout?.shapes ?? {}).sort(),
      json.graph.nodes.map((node) => node.code).sort(),
    );
  });
});
