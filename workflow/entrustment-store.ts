import type { Queryable } from "../runtime/database.ts";

/** A delegation (of one data mode) as 10.x answers it: who entrusts whom, for which app (every app when null), when. */
export interface Entrustment {
  id: string;
  entruster: { id: string; account: string; name: string };
  entrustee: { id: string; account: string; name: string };
  app: { id: string; code: string; name: string } | null;
  /** Unix seconds. */
  from: number;
  to: number;
}

const ENTRUSTMENT_VIEW = `e.id,
  json_build_object('id', r.id, 'account', r.account, 'name', r.name) as entruster,
  json_build_object('id', t.id, 'account', t.account, 'name', t.name) as entrustee,
  case when a.id is null then null else json_build_object('id', a.id, 'code', a.code, 'name', a.name) end as app,
  extract(epoch from e.valid_from)::bigint::float8 as "from", extract(epoch from e.valid_to)::bigint::float8 as "to"`;

const ENTRUSTMENT_JOINS = `workflow_entrustments e
  join users r on r.id = e.entruster_id
  join users t on t.id = e.entrustee_id
  left join workflow_apps a on a.id = e.app_id`;

/** 10.1: the users `userId` entrusts (`entrustees`) or who entrust them (`entrusters`), latest first. */
export async function entrustmentsOf(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  userId: string,
  relationship: "entrusters" | "entrustees",
): Promise<Entrustment[]> {
  const side = relationship === "entrustees" ? sql`e.entruster_id` : sql`e.entrustee_id`;
  return sql<Entrustment[]>`
    select ${sql.unsafe(ENTRUSTMENT_VIEW)} from ${sql.unsafe(ENTRUSTMENT_JOINS)}
    where e.tenant_id = ${tenantId} and e.test = ${test} and ${side} = ${userId}
    order by e.valid_from desc, e.id
    limit 1000`;
}

/** 10.2: `entrusteeId` handles `entrusterId`'s tasks of the app (every app when null) from `from` to `to`. */
export async function putEntrustment(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  entrusterId: string,
  entrusteeId: string,
  appId: string | null,
  from: number,
  to: number,
): Promise<Entrustment> {
  const [row] = await sql<{ id: string }[]>`
    insert into workflow_entrustments (tenant_id, test, entruster_id, entrustee_id, app_id, valid_from, valid_to)
    values (${tenantId}, ${test}, ${entrusterId}, ${entrusteeId}, ${appId}, to_timestamp(${from}), to_timestamp(${to}))
    on conflict (entruster_id, entrustee_id, test, coalesce(app_id, '00000000-0000-0000-0000-000000000000'))
    do update set valid_from = excluded.valid_from, valid_to = excluded.valid_to
    returning id`;
  const [entrustment] = await sql<Entrustment[]>`
    select ${sql.unsafe(ENTRUSTMENT_VIEW)} from ${sql.unsafe(ENTRUSTMENT_JOINS)} where e.id = ${row!.id}`;
  return entrustment!;
}

/** 10.3: ends the delegations between the two users (of one app, or all of them); how many there were. */
export async function deleteEntrustments(
  sql: Queryable,
  tenantId: string,
  test: boolean,
  entrusterId: string,
  entrusteeId: string,
  appId: string | undefined,
): Promise<number> {
  const rows = await sql`
    delete from workflow_entrustments
    where tenant_id = ${tenantId} and test = ${test} and entruster_id = ${entrusterId} and entrustee_id = ${entrusteeId}
      ${appId ? sql`and app_id = ${appId}` : sql``}
    returning id`;
  return rows.length;
}
