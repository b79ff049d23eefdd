import { z } from "@hono/zod-openapi";

/** Spec 001's objects as the workflow API answers them, for the document. */

/** What a workflow app says of itself, in the user's app list and in the operators' read alike. */
export const appDescriptionFields = {
  abbreviation: z.string().nullable(),
  description: z.string().nullable(),
  tags: z.string(),
  icon: z.string().nullable(),
  palette: z.string().nullable(),
  department: z.string().nullable(),
  contact: z.string().nullable(),
};

export const profileRefSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    account: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .openapi("WorkflowProfile");

const milestoneSchema = z
  .object({
    name: z.string(),
    percent: z.number().int(),
    status: z.enum(["todo", "doing", "done"]),
    nameIn: z.string(),
    branch: z.string(),
  })
  .openapi("Milestone");

export const taskSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    code: z.string().openapi({ description: "the step's code" }),
    uri: z.string(),
    status: z.number().int().openapi({ description: "1 to do, 2 done, 3 sub-process" }),
    assignUser: profileRefSchema.nullable(),
    actionUser: profileRefSchema.nullable(),
    actualUser: profileRefSchema.nullable(),
    assignTime: z.number().int().nullable(),
    actionTime: z.number().int().nullable(),
    expireTime: z.number().int().nullable(),
    actionName: z.string().nullable(),
    remark: z.string().nullable(),
    actions: z.array(
      z.object({ id: z.number().int(), name: z.string(), code: z.string(), remarkRequired: z.boolean() }),
    ),
  })
  .passthrough()
  .openapi("Task");

export const processSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    uri: z.string(),
    entry: z.number().int().openapi({ description: "the serial number" }),
    status: z.enum(["doing", "suspended", "done", "killed"]),
    create: z.number().int(),
    update: z.number().int(),
    owner: profileRefSchema.nullable(),
    states: z.array(z.object({ code: z.string(), nameEx: z.string() })),
    milestone: milestoneSchema.nullable(),
    milestones: z.array(milestoneSchema),
    tasks: z.array(taskSchema),
  })
  .passthrough()
  .openapi("Process");

export const activitySchema = z
  .object({
    id: z.string(),
    description: z.string(),
    level: z.enum(["VERBOSE", "INFO", "WARNING", "ERROR"]),
    timestamp: z.number().int(),
    category: z.enum(["DEFINITION", "INSTANCE", "MESSENGER", "NOTIFICATION", "DATABINDING"]),
    tags: z.string(),
    user: z.string().nullable(),
    entryId: z.number().int().nullable(),
  })
  .openapi("Activity");

/** 3.2's answer: serial number, step number, the first step's URL, the first task. */
export const startedSchema = z
  .union([z.number().int(), z.string(), taskSchema])
  .openapi("StartedProcessEntity", {
    description: "entities: [serial number, step number, URL of the first step, the first task]",
  });

/** 4.9's answer: each notification the reminder was sent as (its status is read with the notification API). */
export const reminderSchema = z
  .object({
    id: z.uuid().openapi({ description: "the notification's id, for GET /notification/status" }),
    channel: z.string(),
    accounts: z.array(z.string()).openapi({ description: "the accounts reminded" }),
  })
  .openapi("Reminder");
