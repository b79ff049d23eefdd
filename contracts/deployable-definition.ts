import { workflowDefinitionSchema } from "./workflow-definition.ts";
import { definitionProblems } from "./workflow-definition-rules.ts";

/**
 * A definition that may be deployed: the shape of `workflowDefinitionSchema` and every rule of
 * `definitionProblems`, each broken rule an issue naming the node, so a refused deployment says
 * where to look (`graph: node approve: no start leads to it`).
 */
export const deployableDefinitionSchema = workflowDefinitionSchema.superRefine((definition, context) => {
  for (const problem of definitionProblems(definition)) {
    context.addIssue({
      code: "custom",
      path: ["graph"],
      message: problem.message,
      params: { rule: problem.rule, node: problem.node },
    });
  }
});
