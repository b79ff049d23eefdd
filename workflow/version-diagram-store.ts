import type { WorkflowDefinition } from "../contracts/workflow-definition.ts";
import type { Queryable } from "../runtime/database.ts";
import type { DiagramLayout } from "./bpmn/diagram-layout.ts";

/** Keeps a version's diagram, unless it has one already: a version keeps the first it is drawn with. */
export async function keepVersionDiagram(
  sql: Queryable,
  versionId: string,
  diagram: DiagramLayout,
): Promise<void> {
  await sql`
    update workflow_versions set diagram = ${sql.json(diagram as never)}
    where id = ${versionId} and diagram is null`;
}

/** A version of the app with its definition and diagram, when the app has it. */
export async function versionWithDiagram(
  sql: Queryable,
  appId: string,
  versionId: string,
): Promise<{ definition: WorkflowDefinition; diagram: DiagramLayout | null } | undefined> {
  const [row] = await sql<{ definition: WorkflowDefinition; diagram: DiagramLayout | null }[]>`
    select definition, diagram from workflow_versions where app_id = ${appId} and id = ${versionId}`;
  return row;
}
