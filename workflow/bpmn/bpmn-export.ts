import { layoutProcess } from "bpmn-auto-layout";
import type { WorkflowDefinition, WorkflowNode } from "../../contracts/workflow-definition.ts";
import { bpmnModdle, type ModdleElement } from "./bpmn-document.ts";
import { writeAction, writeAssignee, writeField } from "./bpmn-extensions.ts";
import { type DiagramLayout, layoutFromDiagram } from "./diagram-layout.ts";

const ELEMENT_TYPES: Record<WorkflowNode["kind"], string> = {
  start: "bpmn:StartEvent",
  task: "bpmn:UserTask",
  exclusive: "bpmn:ExclusiveGateway",
  parallel: "bpmn:ParallelGateway",
  dynamicParallel: "bpmn:ParallelGateway",
  join: "bpmn:ParallelGateway",
  subprocess: "bpmn:CallActivity",
  end: "bpmn:EndEvent",
};
// The source elements BPMN lets name a default flow; other sources mark it on the flow itself.
const WITH_DEFAULT = new Set(["bpmn:ExclusiveGateway", "bpmn:UserTask", "bpmn:CallActivity"]);

/**
 * A version as a BPMN 2.0 document with the platform's extension, which `importBpmn` reads back as
 * the same definition. Drawn as `layout` says when it covers every node, else laid out anew.
 */
export async function exportBpmn(
  definition: WorkflowDefinition,
  layout: DiagramLayout | null,
  processId: string,
): Promise<string> {
  const moddle = bpmnModdle();
  const create = moddle.create.bind(moddle);
  const extensions = (values: ModdleElement[]) =>
    values.length > 0 ? { extensionElements: create("bpmn:ExtensionElements", { values }) } : {};

  const elements = new Map<string, ModdleElement>();
  for (const node of definition.graph.nodes) {
    elements.set(
      node.code,
      create(ELEMENT_TYPES[node.kind], { id: node.code, ...nodeProperties(node, create, extensions) }),
    );
  }
  const used = new Set(elements.keys());
  const flows = definition.graph.edges.map((edge, index) => {
    let id = layout?.edges[index]?.id ?? `Flow_${index + 1}`;
    while (used.has(id)) id = `${id}_`;
    used.add(id);
    const source = elements.get(edge.from)!;
    const target = elements.get(edge.to)!;
    const flow = create("bpmn:SequenceFlow", { id, sourceRef: source, targetRef: target });
    if (edge.action) flow.action = edge.action;
    if (edge.condition) flow.conditionExpression = create("bpmn:FormalExpression", { body: edge.condition });
    if (edge.default) {
      if (WITH_DEFAULT.has(source.$type)) source.default = flow;
      else flow.isDefault = true;
    }
    source.outgoing = [...((source.outgoing as ModdleElement[] | undefined) ?? []), flow];
    target.incoming = [...((target.incoming as ModdleElement[] | undefined) ?? []), flow];
    return flow;
  });

  // The app's code names the process, unless a step or flow has that id already.
  let id = processId;
  while (used.has(id)) id = `${id}_process`;
  const process = create("bpmn:Process", {
    id,
    isExecutable: true,
    flowElements: [...elements.values(), ...flows],
    ...extensions([
      ...definition.schema.fields.map((field) => writeField(create, field)),
      ...definition.events.map((event) => create("op:Event", { ...event })),
      ...definition.exportTemplates.map(({ id, ...rest }) =>
        create("op:ExportTemplate", { templateId: id, ...rest }),
      ),
    ]),
  });
  const documentRoot = create("bpmn:Definitions", {
    id: "Definitions_1",
    targetNamespace: "http://bpmn.io/schema/bpmn",
    exporter: "open-platform",
    rootElements: [process],
  });
  const drawn = layout && definition.graph.nodes.every((node) => layout.shapes[node.code]);
  // The auto-layout writes the document anew, elements in its own order; only its diagram is taken,
  // so the document keeps the graph's order and imports as the same definition.
  const diagram = drawn ? layout : await autoLayout((await moddle.toXML(documentRoot)).xml, elements, flows);
  documentRoot.diagrams = [diagramOf(create, process, elements, flows, diagram)];
  return (await moddle.toXML(documentRoot, { format: true })).xml;
}

async function autoLayout(
  xml: string,
  elements: Map<string, ModdleElement>,
  flows: readonly ModdleElement[],
): Promise<DiagramLayout> {
  const laidOut = await bpmnModdle().fromXML(await layoutProcess(xml));
  const flowIds = flows.map((flow) => flow.id as string);
  return layoutFromDiagram(laidOut.rootElement, new Set(elements.keys()), flowIds)!;
}

type Create = (type: string, properties?: Record<string, unknown>) => ModdleElement;

function nodeProperties(
  node: WorkflowNode,
  create: Create,
  extensions: (values: ModdleElement[]) => Record<string, unknown>,
): Record<string, unknown> {
  const milestone = node.milestone ? [create("op:Milestone", { ...node.milestone })] : [];
  const named = node.name === undefined ? {} : { name: node.name };
  switch (node.kind) {
    case "start":
      return {
        ...named,
        ...(node.automatic ? { automatic: true } : {}),
        ...extensions([...milestone, ...(node.actions ?? []).map((action) => writeAction(create, action))]),
      };
    case "task":
      return {
        ...named,
        ...(node.mode === "any"
          ? {}
          : {
              loopCharacteristics: create("bpmn:MultiInstanceLoopCharacteristics", {
                isSequential: node.mode === "sequential",
              }),
            }),
        ...(node.hidden ? { hidden: true } : {}),
        ...(node.allowSystemUser ? { allowSystemUser: true } : {}),
        ...(node.requiresThing ? { requiresThing: true } : {}),
        ...(node.expiresInSeconds === undefined ? {} : { expiresInSeconds: node.expiresInSeconds }),
        ...(node.whenNobody === "refuse" ? {} : { whenNobody: node.whenNobody }),
        ...extensions([
          ...milestone,
          ...node.assignees.map((assignee) => writeAssignee(create, "op:Assignee", assignee)),
          ...(node.cc ?? []).map((assignee) => writeAssignee(create, "op:Cc", assignee)),
          ...(node.actions ?? []).map((action) => writeAction(create, action)),
        ]),
      };
    case "parallel":
      return { ...named, gatewayDirection: "Diverging", ...extensions(milestone) };
    case "dynamicParallel":
      return { ...named, gatewayDirection: "Diverging", list: node.list, ...extensions(milestone) };
    case "join":
      return { ...named, gatewayDirection: "Converging", split: node.split, ...extensions(milestone) };
    case "subprocess":
      return {
        ...named,
        calledElement: node.workflow,
        ...extensions([
          ...milestone,
          ...Object.entries(node.data).map(([child, parent]) => create("op:DataMapping", { child, parent })),
        ]),
      };
    default:
      return { ...named, ...extensions(milestone) };
  }
}

function diagramOf(
  create: Create,
  process: ModdleElement,
  elements: Map<string, ModdleElement>,
  flows: ModdleElement[],
  layout: DiagramLayout,
): ModdleElement {
  const labelOf = (bounds: DiagramLayout["edges"][number]["label"]) =>
    bounds ? { label: create("bpmndi:BPMNLabel", { bounds: create("dc:Bounds", { ...bounds }) }) } : {};
  const shapes = [...elements].map(([code, element]) => {
    const { label, ...bounds } = layout.shapes[code]!;
    return create("bpmndi:BPMNShape", {
      id: `${code}_di`,
      bpmnElement: element,
      // Without it, viewers draw an exclusive gateway as an empty diamond.
      ...(element.$type === "bpmn:ExclusiveGateway" ? { isMarkerVisible: true } : {}),
      bounds: create("dc:Bounds", bounds),
      ...labelOf(label),
    });
  });
  const edges = flows.map((flow, index) => {
    const drawn = layout.edges[index];
    const waypoints = drawn?.waypoints.length ? drawn.waypoints : straightLine(layout, flow);
    return create("bpmndi:BPMNEdge", {
      id: `${String(flow.id)}_di`,
      bpmnElement: flow,
      waypoint: waypoints.map((point) => create("dc:Point", { ...point })),
      ...labelOf(drawn?.label),
    });
  });
  const plane = create("bpmndi:BPMNPlane", {
    id: "BPMNPlane_1",
    bpmnElement: process,
    planeElement: [...shapes, ...edges],
  });
  return create("bpmndi:BPMNDiagram", { id: "BPMNDiagram_1", plane });
}

/** A flow the diagram did not draw: from the middle of its source's right side to its target's left. */
function straightLine(layout: DiagramLayout, flow: ModdleElement) {
  const from = layout.shapes[(flow.sourceRef as ModdleElement).id as string]!;
  const to = layout.shapes[(flow.targetRef as ModdleElement).id as string]!;
  return [
    { x: from.x + from.width, y: from.y + from.height / 2 },
    { x: to.x, y: to.y + to.height / 2 },
  ];
}
