import { z } from "zod";
import { bootstrapSchema } from "./bootstrap.ts";
import { workflowDefinitionSchema } from "./workflow-definition.ts";

/** JSON Schema documents published beside the contracts, by file name. */
export function jsonSchemas(): Record<string, unknown> {
  return {
    "bootstrap.schema.json": {
      ...z.toJSONSchema(bootstrapSchema, { io: "input", target: "draft-2020-12" }),
      title: "Open platform bootstrap file",
    },
    "workflow-definition.schema.json": {
      ...z.toJSONSchema(workflowDefinitionSchema, { io: "input", target: "draft-2020-12" }),
      title: "Open platform workflow definition (a version's schema, graph and events)",
    },
  };
}
