import {
  DEFAULT_ACTION,
  type WorkflowAction,
  type WorkflowDefinition,
  type WorkflowEdge,
  type WorkflowNode,
} from "../../contracts/workflow-definition.ts";
import { type Expression, parseExpression } from "../../contracts/workflow-expression.ts";

/** A definition prepared for running: nodes and edges indexed, conditions parsed once. */
export class CompiledWorkflow {
  readonly nodes = new Map<string, WorkflowNode>();
  readonly outgoing = new Map<string, { edge: WorkflowEdge; condition: Expression | null }[]>();
  readonly dynamicSplits = new Set<string>();
  readonly joinOf = new Map<string, string>();

  constructor(readonly definition: WorkflowDefinition) {
    for (const node of definition.graph.nodes) {
      this.nodes.set(node.code, node);
      if (node.kind === "dynamicParallel") this.dynamicSplits.add(node.code);
      if (node.kind === "join") this.joinOf.set(node.split, node.code);
    }
    for (const edge of definition.graph.edges) {
      const list = this.outgoing.get(edge.from) ?? [];
      list.push({ edge, condition: edge.condition ? parseExpression(edge.condition) : null });
      this.outgoing.set(edge.from, list);
    }
  }

  node(code: string): WorkflowNode {
    const node = this.nodes.get(code);
    if (!node) throw new Error(`no node ${code}`);
    return node;
  }

  actionsOf(code: string): WorkflowAction[] {
    const node = this.node(code);
    const actions = node.kind === "task" || node.kind === "start" ? node.actions : undefined;
    return actions && actions.length > 0 ? actions : [DEFAULT_ACTION];
  }
}
