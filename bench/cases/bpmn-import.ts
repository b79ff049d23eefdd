import { deployableDefinitionSchema } from "../../contracts/deployable-definition.ts";
import { bpmnModdle } from "../../workflow/bpmn/bpmn-document.ts";
import { exportBpmn } from "../../workflow/bpmn/bpmn-export.ts";
import { importBpmn } from "../../workflow/bpmn/bpmn-import.ts";
import { type BenchCase, type BenchResult, ratioAtMost } from "../bench-result.ts";
import { median } from "../statistics.ts";

const NODES = 500;
const ROUNDS = 9;
const TARGET_MS = 1_000;
/**
 * An import at most this many times moddle's own reading of the same document: what the platform
 * adds (the compilation, its rules, the diagram and the joins' splits) stays a fraction of the XML.
 */
const IMPORT_RATIO = 2;

/**
 * A graph of `NODES` nodes as an operator draws a large one: blocks of a parallel split into two
 * reviews and their join, then a decision on the form that ends early or goes on by default, each task with its
 * assignee and actions.
 */
function largeDefinition() {
  const nodes: Record<string, unknown>[] = [{ kind: "start", code: "apply", name: "Apply" }];
  const edges: Record<string, unknown>[] = [];
  const task = (code: string) => ({
    kind: "task",
    code,
    name: code,
    assignees: [{ accounts: ["reviewer"] }],
    actions: [
      { id: 1, code: "approve", name: "Approve" },
      { id: 2, code: "reject", name: "Reject", remarkRequired: true },
    ],
  });
  let last = "apply";
  // Each block is six nodes; the start, the end and at least one task after the blocks make up the rest.
  const blocks = Math.floor((NODES - 3) / 6);
  for (let block = 0; block < blocks; block++) {
    const split = `split${block}`;
    const [a, b, join, decide, next] = ["a", "b", "join", "decide", "next"].map((part) => `${part}${block}`);
    nodes.push(
      { kind: "parallel", code: split },
      task(a!),
      task(b!),
      { kind: "join", code: join!, split },
      { kind: "exclusive", code: decide! },
      task(next!),
    );
    edges.push(
      { from: last, to: split },
      { from: split, to: a },
      { from: split, to: b },
      { from: a, to: join, action: "approve" },
      { from: b, to: join, action: "approve" },
      { from: join, to: decide },
      { from: decide, to: "done", condition: `days > ${block}` },
      { from: decide, to: next, default: true },
    );
    last = next!;
  }
  // A decision's condition ends the process early; tasks after the blocks make up the count.
  const tails = NODES - 2 - blocks * 6;
  for (let index = 0; index < tails; index++) {
    nodes.push(task(`tail${index}`));
    edges.push({ from: index === 0 ? last : `tail${index - 1}`, to: `tail${index}` });
  }
  nodes.push({ kind: "end", code: "done", name: "Done" });
  edges.push({ from: `tail${tails - 1}`, to: "done" });
  return deployableDefinitionSchema.parse({
    schema: { fields: [{ name: "days", type: "number", required: true }] },
    graph: { nodes, edges },
  });
}

/**
 * Milliseconds each of `reference` and `work` takes, in alternating rounds after one of each not
 * timed, so that a slower moment of the machine falls on both.
 */
async function alternately(
  reference: () => Promise<unknown>,
  work: () => Promise<unknown>,
): Promise<{ references: number[]; works: number[] }> {
  const references: number[] = [];
  const works: number[] = [];
  const time = async (run: () => Promise<unknown>, into: number[]) => {
    const started = performance.now();
    await run();
    into.push(performance.now() - started);
  };
  await reference();
  await work();
  for (let round = 0; round < ROUNDS; round++) {
    await time(reference, references);
    await time(work, works);
  }
  return { references, works };
}

export const bpmnImportBench: BenchCase = {
  name: "bpmn-import",
  description: `a ${NODES}-node BPMN document (laid out by the export) imported into a definition, against bpmn-moddle's reading of the same document`,
  async run(): Promise<BenchResult[]> {
    const definition = JSON.parse(JSON.stringify(largeDefinition()));
    const xml = await exportBpmn(definition, null, "large");
    const imported = await importBpmn(xml);
    if (imported.definition.graph.nodes.length !== NODES)
      throw new Error(`the document imported as ${imported.definition.graph.nodes.length} nodes`);
    const { references, works: imports } = await alternately(
      () => bpmnModdle().fromXML(xml),
      () => importBpmn(xml),
    );
    const list = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(", ");
    console.error(
      `bpmn-import: ${xml.length} characters; moddle's fromXML ${list(references)} ms, importBpmn ${list(imports)} ms`,
    );
    return [
      ratioAtMost("bpmn-import.500-nodes", "ms", median(imports), median(references), IMPORT_RATIO, {
        absoluteTarget: TARGET_MS,
      }),
    ];
  },
};
