import { deployableDefinitionSchema } from "../../contracts/deployable-definition.ts";
import type { WorkflowDefinition, WorkflowDefinitionInput } from "../../contracts/workflow-definition.ts";
import { ExpressionError, parseExpression } from "../../contracts/workflow-expression.ts";
import { bpmnRefusal, extensionsOf, type ModdleElement, many, readBpmn } from "./bpmn-document.ts";
import { defined, readActions, readAssignees, readFields, readMilestone } from "./bpmn-extensions.ts";
import { type DiagramLayout, layoutFromDiagram } from "./diagram-layout.ts";
import { joinedSplit } from "./join-split.ts";

/** A BPMN document compiled: the definition the engine runs, and the diagram it was drawn with. */
export interface ImportedBpmn {
  definition: WorkflowDefinition;
  layout: DiagramLayout | null;
}

type NodeInput = WorkflowDefinitionInput["graph"]["nodes"][number];
type EdgeInput = WorkflowDefinitionInput["graph"]["edges"][number];

const CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
// Camunda and Activiti write conditions as `${...}`; the platform's language is what is inside.
const WRAPPED = /^\s*[$#]\{([\s\S]*)\}\s*$/;

/**
 * Compiles a BPMN 2.0 document (one process, with the platform's extension) into the graph the
 * engine runs. Every element the engine cannot run is refused naming its id and type, never left
 * out; a condition that does not parse is refused naming its sequence flow.
 */
export async function importBpmn(xml: string): Promise<ImportedBpmn> {
  const definitions = await readBpmn(xml);
  const processes = many(definitions, "rootElements").filter((root) => root.$type === "bpmn:Process");
  if (processes.length !== 1) {
    throw bpmnRefusal(`a document holds one process; this one has ${processes.length}`);
  }
  const process = processes[0]!;
  const elements = many(process, "flowElements");
  const flows = elements.filter((element) => element.$type === "bpmn:SequenceFlow");
  const problems: string[] = [];
  const nodes: NodeInput[] = [];
  for (const element of elements) {
    if (element.$type === "bpmn:SequenceFlow") continue;
    try {
      nodes.push(nodeOf(element, flows));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      problems.push(error.message);
    }
  }
  const edges: EdgeInput[] = [];
  for (const flow of flows) {
    try {
      edges.push(edgeOf(flow));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw bpmnRefusal(problems.join("; "));
  for (const node of nodes) {
    if (node.kind === "join" && node.split === "") node.split = joinedSplit(node.code, nodes, edges);
  }
  const input: WorkflowDefinitionInput = {
    schema: { fields: readFields(extensionsOf(process, "op:Field")) },
    graph: { nodes, edges },
    events: extensionsOf(process, "op:Event").map((item) =>
      defined({ on: item.on, url: item.url, name: item.name }),
    ) as WorkflowDefinitionInput["events"],
    exportTemplates: extensionsOf(process, "op:ExportTemplate").map((item) =>
      defined({ id: item.templateId, name: item.name, uri: item.uri }),
    ) as WorkflowDefinitionInput["exportTemplates"],
  };
  const parsed = deployableDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [section, list, index] = issue.path;
    const node = section === "graph" && list === "nodes" ? nodes[index as number]?.code : undefined;
    // The element, and the property of it the rule is about (`expiresInSeconds`, `assignees`...).
    const property = issue.path.slice(3).join(".");
    const where = node
      ? `element ${node}${property ? `, ${property}` : ""}`
      : issue.path.join(".") || "the process";
    throw bpmnRefusal(`${where}: ${issue.message}`);
  }
  const layout = layoutFromDiagram(
    definitions,
    new Set(nodes.map((node) => node.code)),
    flows.map((flow) => flow.id as string),
  );
  return { definition: parsed.data, layout };
}

class Refused extends Error {}

function refuse(element: ModdleElement, why: string): never {
  throw new Refused(`element ${String(element.id)} (${element.$type}): ${why}`);
}

function nodeOf(element: ModdleElement, flows: readonly ModdleElement[]): NodeInput {
  const code = element.id as string | undefined;
  if (!code || !CODE.test(code)) {
    refuse(
      element,
      "its id is the step's code: a letter, then up to 63 letters, digits, dots, hyphens or underscores",
    );
  }
  if (many(element, "eventDefinitions").length > 0) {
    const kinds = many(element, "eventDefinitions").map((definition) => definition.$type);
    refuse(element, `the engine cannot run an event with ${kinds.join(", ")}`);
  }
  const loop = element.loopCharacteristics as ModdleElement | undefined;
  if (loop && element.$type !== "bpmn:UserTask") refuse(element, "only a user task may repeat");
  const base = defined({
    code,
    name: (element.name as string | undefined) || undefined,
    milestone: readMilestone(element),
  });
  switch (element.$type) {
    case "bpmn:StartEvent":
      return defined({
        kind: "start" as const,
        ...base,
        automatic: element.automatic as boolean | undefined,
        actions: readActions(element),
      });
    case "bpmn:EndEvent":
      return { kind: "end", ...base };
    case "bpmn:ExclusiveGateway":
      return { kind: "exclusive", ...base };
    case "bpmn:CallActivity": {
      const workflow = element.calledElement as string | undefined;
      if (!workflow) refuse(element, "a call activity names the workflow it starts in calledElement");
      const data = Object.fromEntries(
        extensionsOf(element, "op:DataMapping").map((item) => [item.child as string, item.parent as string]),
      );
      return { kind: "subprocess", ...base, workflow, data };
    }
    case "bpmn:UserTask":
      return userTaskOf(element, base, loop);
    case "bpmn:ParallelGateway":
      return parallelGatewayOf(element, base, flows);
    default:
      return refuse(element, "the engine cannot run this element");
  }
}

function userTaskOf(
  element: ModdleElement,
  base: { code: string; name?: string },
  loop: ModdleElement | undefined,
): NodeInput {
  if (loop && loop.$type !== "bpmn:MultiInstanceLoopCharacteristics") {
    refuse(element, "a user task repeats only as a multi-instance (parallel or sequential)");
  }
  const mode = loop ? (loop.isSequential ? "sequential" : "all") : undefined;
  const cc = readAssignees(element, "op:Cc");
  return defined({
    kind: "task" as const,
    ...base,
    assignees: readAssignees(element, "op:Assignee"),
    mode,
    actions: readActions(element),
    cc: cc.length > 0 ? cc : undefined,
    hidden: element.hidden as boolean | undefined,
    allowSystemUser: element.allowSystemUser as boolean | undefined,
    requiresThing: element.requiresThing as boolean | undefined,
    expiresInSeconds: element.expiresInSeconds as number | undefined,
    whenNobody: element.whenNobody as "refuse" | "skip" | undefined,
  });
}

/** A diverging parallel gateway splits, a converging one joins; `op:list` makes a split dynamic. */
function parallelGatewayOf(
  element: ModdleElement,
  base: { code: string; name?: string },
  flows: readonly ModdleElement[],
): NodeInput {
  const incoming = flows.filter((flow) => flow.targetRef === element).length;
  const outgoing = flows.filter((flow) => flow.sourceRef === element).length;
  const list = element.list as string | undefined;
  const split = element.split as string | undefined;
  const direction = element.gatewayDirection as string | undefined;
  const explicit =
    split !== undefined || list !== undefined || direction === "Converging" || direction === "Diverging";
  if (!explicit && incoming > 1 && outgoing > 1) {
    refuse(element, "a gateway that both joins and splits; draw one of each, or set its gatewayDirection");
  }
  const converging =
    split !== undefined || direction === "Converging" || (!explicit && incoming > 1 && outgoing <= 1);
  if (converging) {
    if (list !== undefined) refuse(element, "a converging gateway has no list");
    return { kind: "join", ...base, split: split ?? "" };
  }
  return list === undefined ? { kind: "parallel", ...base } : { kind: "dynamicParallel", ...base, list };
}

function edgeOf(flow: ModdleElement): EdgeInput {
  const source = flow.sourceRef as ModdleElement | undefined;
  const target = flow.targetRef as ModdleElement | undefined;
  if (!source || !target) refuse(flow, "a sequence flow joins two elements");
  const expression = flow.conditionExpression as ModdleElement | undefined;
  let condition: string | undefined;
  if (expression) {
    const body = String(expression.body ?? "");
    condition = (WRAPPED.exec(body)?.[1] ?? body).trim();
    try {
      parseExpression(condition);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      refuse(flow, `its condition does not parse: ${error.message}`);
    }
  }
  return defined({
    from: source.id as string,
    to: target.id as string,
    action: flow.action as string | undefined,
    condition,
    default: flow.isDefault === true || source.default === flow ? true : undefined,
  });
}
