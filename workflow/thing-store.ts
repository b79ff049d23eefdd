import { randomInt } from "node:crypto";
import type { FieldDefinition } from "../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";

export interface Thing {
  id: string;
  code: string;
  name: string;
}

export interface Pickup {
  pickup: string;
  thing: Thing;
  /** Who may collect with it; null for whoever holds the code. */
  user: { id: string; account: string; name: string } | null;
  /** Unix seconds. */
  expireTime: number;
  usedTime: number | null;
}

/** The item codes a process's data names in its `thing` fields (a code, or an object with `code`). */
export function thingCodes(fields: readonly FieldDefinition[], data: Record<string, unknown>): string[] {
  const codes = new Set<string>();
  const visit = (defs: readonly FieldDefinition[], values: Record<string, unknown>) => {
    for (const field of defs) {
      const value = values[field.name];
      if (field.type === "thing") {
        const code = typeof value === "string" ? value : (value as { code?: unknown } | null)?.code;
        if (typeof code === "string" && code) codes.add(code);
      } else if (field.type === "list" && Array.isArray(value)) {
        for (const row of value)
          if (row && typeof row === "object") visit(field.fields ?? [], row as Record<string, unknown>);
      }
    }
  };
  visit(fields, data);
  return [...codes];
}

export async function thingByCode(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  code: string,
): Promise<Thing | undefined> {
  const [row] = await sql<
    Thing[]
  >`select id, code, name from workflow_things where tenant_id = ${tenantId} and test = ${test} and code = ${code}`;
  return row;
}

/** Pickup codes are read aloud and typed: no 0/O, 1/I/L. */
const PICKUP_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

function newPickupCode(): string {
  return Array.from({ length: 8 }, () => PICKUP_ALPHABET[randomInt(PICKUP_ALPHABET.length)]).join("");
}

const PICKUP_VIEW = `p.code as pickup, json_build_object('id', t.id, 'code', t.code, 'name', t.name) as thing,
  case when u.id is null then null else json_build_object('id', u.id, 'account', u.account, 'name', u.name) end as "user",
  extract(epoch from p.expires_at)::bigint::float8 as "expireTime",
  extract(epoch from p.used_at)::bigint::float8 as "usedTime"`;

/** 11.1: a new pickup code for an item (created, with `name`, when new), for a user or anyone, until `expiresAt`. */
export async function createPickup(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  thing: { code: string; name?: string | undefined },
  userId: string | null,
  expiresAt: number,
): Promise<Pickup> {
  const [item] = await sql<{ id: string }[]>`
    insert into workflow_things (tenant_id, test, code, name) values (${tenantId}, ${test}, ${thing.code}, ${thing.name ?? thing.code})
    on conflict (tenant_id, test, code) do update set name = coalesce(${thing.name ?? null}, workflow_things.name)
    returning id`;
  const code = newPickupCode();
  await sql`
    insert into workflow_pickups (code, thing_id, tenant_id, user_id, expires_at)
    values (${code}, ${item!.id}, ${tenantId}, ${userId}, to_timestamp(${expiresAt}))`;
  return (await pickupByCode(sql, tenantId, test, code))!;
}

export async function pickupByCode(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  code: string,
): Promise<Pickup | undefined> {
  const [row] = await sql<Pickup[]>`
    select ${sql.unsafe(PICKUP_VIEW)} from workflow_pickups p
    join workflow_things t on t.id = p.thing_id
    left join users u on u.id = p.user_id
    where p.code = ${code} and p.tenant_id = ${tenantId} and t.test = ${test}`;
  return row;
}

/**
 * Spends a pickup code for an item: it must exist in the tenant, be unused and unexpired, and be
 * for that item. Returns the user it names (who becomes the handler).
 */
export async function usePickup(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  code: string,
  thingCode: string,
  usedBy: string | null,
): Promise<string | null> {
  const [row] = await sql<{ userId: string | null; thing: string; used: boolean; expired: boolean }[]>`
    select p.user_id as "userId", t.code as thing, p.used_at is not null as used, p.expires_at <= now() as expired
    from workflow_pickups p join workflow_things t on t.id = p.thing_id
    where p.code = ${code} and p.tenant_id = ${tenantId} and t.test = ${test}
    for update of p`;
  if (!row || row.thing !== thingCode)
    throw new WorkflowRefusal("PICKUP_NOT_FOUND", `no pickup code ${code} for the item ${thingCode}`);
  if (row.used) throw new WorkflowRefusal("PICKUP_USED", `the pickup code ${code} has been used`);
  if (row.expired) throw new WorkflowRefusal("PICKUP_USED", `the pickup code ${code} has expired`);
  await sql`update workflow_pickups set used_at = now(), used_by = ${usedBy} where code = ${code}`;
  return row.userId;
}

/**
 * 3.5: the tasks that wait for an item, by whom, and those the user collected it with (of the app
 * `appId` only, when given).
 */
export async function thingTasks(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  thingCode: string,
  userId: string,
  appId: string | undefined,
) {
  return sql<{ taskId: string; processId: string; collect: "mine" | "others" | "collected" }[]>`
    select t.id as "taskId", t.process_id as "processId",
           case when t.status = 'done' then 'collected'
                when exists (select from workflow_todo d where d.task_id = t.id and d.user_id = ${userId}) then 'mine'
                else 'others' end as collect
    from workflow_processes p
    join workflow_tasks t on t.process_id = p.id
    where p.tenant_id = ${tenantId} and p.test = ${test} and p.things @> array[${thingCode}]::text[]
      ${appId ? sql`and p.app_id = ${appId}` : sql``}
      and ((t.status = 'todo' and exists (select from workflow_todo d where d.task_id = t.id and d.thing and not d.suspended))
           or (t.status = 'done' and t.thing = ${thingCode} and t.actual_user_id = ${userId}))
    order by t.assigned_at desc
    limit 500`;
}
