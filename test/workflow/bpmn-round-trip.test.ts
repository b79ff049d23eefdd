import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import fc from "fast-check";
import { deployableDefinitionSchema } from "../../contracts/deployable-definition.ts";
import type { WorkflowDefinition } from "../../contracts/workflow-definition.ts";
import { exportBpmn } from "../../workflow/bpmn/bpmn-export.ts";
import { importBpmn } from "../../workflow/bpmn/bpmn-import.ts";
import { blockArbitrary, definitionOf } from "../support/random-workflow-graphs.ts";

/**
 * Export then import gives the definition back, with a diagram; drawn again from it, the same.
 * `processId` names the BPMN process: the app's code, which may be a step's code too.
 */
async function roundTrip(parsed: WorkflowDefinition, processId = "flow"): Promise<void> {
  // As stored: without the keys left undefined.
  const definition = JSON.parse(JSON.stringify(parsed)) as WorkflowDefinition;
  const laidOut = await exportBpmn(definition, null, processId);
  const imported = await importBpmn(laidOut);
  assert.deepEqual(imported.definition, definition);
  assert.ok(imported.layout, "a version made from JSON is exported with a diagram");
  for (const node of definition.graph.nodes) assert.ok(imported.layout.shapes[node.code], node.code);
  const kept = await exportBpmn(imported.definition, imported.layout, processId);
  const again = await importBpmn(kept);
  assert.deepEqual(again.definition, definition);
  assert.deepEqual(again.layout, imported.layout, "the diagram that came in is the one that goes out");
}

describe("BPMN round trip", () => {
  it("gives back every example's definition", async () => {
    const files = (await readdir("examples")).filter((name) => name.endsWith(".workflow.json"));
    assert.ok(files.length > 0);
    for (const file of files) {
      const example = JSON.parse(await readFile(`examples/${file}`, "utf8"));
      await roundTrip(deployableDefinitionSchema.parse(example.definition ?? example));
    }
  });

  it("draws an exclusive gateway with its marker", async () => {
    const file = (await readdir("examples")).find((name) => name.endsWith(".workflow.json"))!;
    const example = JSON.parse(await readFile(`examples/${file}`, "utf8"));
    const definition = deployableDefinitionSchema.parse(example.definition ?? example);
    const exclusive = definition.graph.nodes.filter((node) => node.kind === "exclusive");
    assert.ok(exclusive.length > 0, "the example has an exclusive gateway");
    const xml = await exportBpmn(definition, null, "flow");
    for (const node of exclusive)
      assert.match(
        xml,
        new RegExp(
          `<bpmndi:BPMNShape id="${node.code}_di" bpmnElement="${node.code}" isMarkerVisible="true"`,
        ),
      );
  });

  it("exports an app whose code is also one of its steps' codes", async () => {
    const file = (await readdir("examples")).find((name) => name.endsWith(".workflow.json"))!;
    const example = JSON.parse(await readFile(`examples/${file}`, "utf8"));
    const definition = deployableDefinitionSchema.parse(example.definition ?? example);
    const step = definition.graph.nodes.find((node) => node.kind === "task")!;
    await roundTrip(definition, step.code);
  });

  it("gives back 200 random graphs of the engine's property test", async () => {
    await fc.assert(
      fc.asyncProperty(blockArbitrary, async (block) => {
        await roundTrip(deployableDefinitionSchema.parse(definitionOf(block)));
      }),
      { numRuns: 200 },
    );
  });
});
