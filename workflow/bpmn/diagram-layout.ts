import { z } from "zod";
import { type ModdleElement, many } from "./bpmn-document.ts";

const bounds = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }).strict();
const point = z.object({ x: z.number(), y: z.number() }).strict();

/**
 * A version's diagram as drawn (BPMN DI): a shape per node by code, and per edge, in the order of
 * the graph's edges, its sequence flow's id and the line's points. It is kept beside the
 * definition, not in it, so a version drawn again differently is still the same version.
 */
export const diagramLayoutSchema = z
  .object({
    shapes: z.record(z.string(), bounds.extend({ label: bounds.optional() }).strict()),
    edges: z.array(
      z.object({ id: z.string(), waypoints: z.array(point).max(1000), label: bounds.optional() }).strict(),
    ),
  })
  .strict();
export type DiagramLayout = z.infer<typeof diagramLayoutSchema>;
type Bounds = z.infer<typeof bounds>;

const boundsOf = (element: ModdleElement | undefined): Bounds | undefined => {
  if (!element) return undefined;
  const { x, y, width, height } = element as unknown as Bounds;
  return { x, y, width, height };
};

/** The layout of the first diagram of a document, for the nodes and flows the graph kept. */
export function layoutFromDiagram(
  definitions: ModdleElement,
  nodeCodes: ReadonlySet<string>,
  flowIds: readonly string[],
): DiagramLayout | null {
  const plane = many(definitions, "diagrams")[0]?.plane as ModdleElement | undefined;
  if (!plane) return null;
  const edgeIndex = new Map(flowIds.map((id, index) => [id, index]));
  const layout: DiagramLayout = {
    shapes: {},
    edges: flowIds.map((id) => ({ id, waypoints: [] })),
  };
  for (const item of many(plane, "planeElement")) {
    const target = item.bpmnElement as ModdleElement | undefined;
    const id = target?.id as string | undefined;
    const label = boundsOf((item.label as ModdleElement | undefined)?.bounds as ModdleElement | undefined);
    if (!id) continue;
    if (item.$type === "bpmndi:BPMNShape" && nodeCodes.has(id) && item.bounds) {
      layout.shapes[id] = { ...boundsOf(item.bounds as ModdleElement)!, ...(label ? { label } : {}) };
    }
    const index = edgeIndex.get(id);
    if (item.$type === "bpmndi:BPMNEdge" && index !== undefined) {
      const waypoints = many(item, "waypoint").map((p) => ({ x: p.x as number, y: p.y as number }));
      layout.edges[index] = { id, waypoints, ...(label ? { label } : {}) };
    }
  }
  return layout;
}
