import type { FeedEntity } from "../contracts/feed.ts";
import type { StagedRow } from "./feed-stage-store.ts";

export type RowResult = { ok: true; row: StagedRow } | { ok: false; key: string | null; reason: string };

class Rejected extends Error {}

type Fields = Record<string, unknown>;

/** Codes may come as numbers from providers that number their departments; they are kept as text. */
function text(fields: Fields, name: string, max: number, required: boolean): string | null {
  const value = fields[name];
  if (value === null || value === undefined || value === "") {
    if (required) throw new Rejected(`${name} is ${value === "" ? "empty" : "null"}`);
    return null;
  }
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") throw new Rejected(`${name} is not a string`);
  if (value.length > max) throw new Rejected(`${name} is longer than ${max} characters`);
  return value;
}

function flag(fields: Fields, name: string): boolean | null {
  const value = fields[name];
  if (value === null || value === undefined) return null;
  if (typeof value !== "boolean") throw new Rejected(`${name} is not a boolean`);
  return value;
}

function timestampOf(fields: Fields): number | null {
  const value = fields.timestamp;
  if (value === null || value === undefined) return null;
  if (!Number.isSafeInteger(value)) throw new Rejected("timestamp is not an integer");
  return value as number;
}

/** `bizes` / `bizTypes`: an array of objects with string members; null is a broken row, absent is none. */
function objectList(
  fields: Fields,
  name: string,
  members: readonly string[],
  nullable: boolean,
): Record<string, string | null>[] {
  const value = fields[name];
  if (value === undefined || (value === null && nullable)) return [];
  if (!Array.isArray(value)) throw new Rejected(`${name} is not an array`);
  if (value.length > 100) throw new Rejected(`${name} has more than 100 elements`);
  return value.map((item) => {
    if (!item || typeof item !== "object" || Array.isArray(item))
      throw new Rejected(`${name} holds something other than objects`);
    return Object.fromEntries(members.map((member) => [member, text(item as Fields, member, 100, true)]));
  });
}

function rowOf(entity: FeedEntity, fields: Fields): StagedRow {
  const disabled = flag(fields, "disabled") ?? false;
  const timestamp = timestampOf(fields);
  switch (entity) {
    case "users": {
      const account = text(fields, "account", 100, true)!;
      const values = [
        account,
        text(fields, "name", 200, true),
        text(fields, "email", 320, false),
        text(fields, "phone", 32, false),
        disabled,
        timestamp,
      ];
      return { key: account, values, timestamp };
    }
    case "depts": {
      const code = text(fields, "organizeId", 100, true)!;
      const parent = text(fields, "parentOrganizeId", 100, false);
      // A top-level department: marked independent, or (as some providers do) simply without a parent.
      const independent = flag(fields, "independent") ?? parent === null;
      const values = [
        code,
        text(fields, "organizeName", 200, true),
        parent,
        independent,
        disabled,
        timestamp,
      ];
      return { key: code, values, timestamp };
    }
    case "posts": {
      const code = text(fields, "postCode", 100, true)!;
      const values = [
        code,
        text(fields, "postName", 200, true),
        flag(fields, "formal") ?? false,
        JSON.stringify(objectList(fields, "bizTypes", ["bizType"], true).map((item) => item.bizType)),
        disabled,
        timestamp,
      ];
      return { key: code, values, timestamp };
    }
    case "occupies": {
      const account = text(fields, "account", 100, true)!;
      const dept = text(fields, "deptCode", 100, true)!;
      const post = text(fields, "postCode", 100, true)!;
      const values = [
        account,
        dept,
        post,
        text(fields, "userCode", 100, false),
        JSON.stringify(objectList(fields, "bizes", ["bizType", "bizCode"], false)),
        disabled,
        timestamp,
      ];
      return { key: `${account}:${dept}:${post}`, values, timestamp };
    }
  }
}

const KEY_FIELD: Record<FeedEntity, string> = {
  users: "account",
  depts: "organizeId",
  posts: "postCode",
  occupies: "account",
};

/** Checks one feed entity against the feed's rules; a broken one is rejected with the reason. */
export function readFeedRow(entity: FeedEntity, value: unknown): RowResult {
  if (!value || typeof value !== "object" || Array.isArray(value))
    return { ok: false, key: null, reason: "not a JSON object" };
  try {
    return { ok: true, row: rowOf(entity, value as Fields) };
  } catch (error) {
    if (!(error instanceof Rejected)) throw error;
    const key = (value as Fields)[KEY_FIELD[entity]];
    return {
      ok: false,
      key: typeof key === "string" || typeof key === "number" ? String(key) : null,
      reason: error.message,
    };
  }
}
