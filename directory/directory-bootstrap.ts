import type { Bootstrap } from "../contracts/bootstrap.ts";
import { tenantIdOf } from "../identity/tenants.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import { everyRow, type SectionExport, withoutUnset } from "../runtime/bootstrap-export.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";
import { feedSettings, upsertFeed } from "./feed-store.ts";
import { grantPosition, type PositionRecord, positionPage } from "./position-store.ts";
import {
  type DirectoryEntryRecord,
  directoryEntryPage,
  upsertDepartment,
  upsertPost,
} from "./triple-store.ts";

/** The bootstrap file's departments, posts, positions and feeds, as entries. */
export function directoryBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return [
    ...bootstrap.departments.map((dept) => ({
      kind: "department",
      key: `${dept.tenant}/${dept.code}`,
      value: dept,
      apply: async (tx: Queryable) =>
        upsertDepartment(tx, await tenantIdOf(tx, dept.tenant, `department ${dept.code}`), dept),
    })),
    ...bootstrap.posts.map((post) => ({
      kind: "post",
      key: `${post.tenant}/${post.code}`,
      value: post,
      apply: async (tx: Queryable) =>
        upsertPost(tx, await tenantIdOf(tx, post.tenant, `post ${post.code}`), post),
    })),
    ...bootstrap.positions.map((position) => {
      const name = `${position.account} as ${position.dept}:${position.post}`;
      return {
        kind: "position",
        key: `${position.tenant}/${name}`,
        value: position,
        async apply(tx: Queryable) {
          const tenantId = await tenantIdOf(tx, position.tenant, `position ${name}`);
          await grantPosition(tx, tenantId, position, {
            code: position.account,
            number: position.number,
          }).catch((error: Error) => {
            throw new ConfigError(`position ${name}: ${error.message}`);
          });
        },
      };
    }),
  ];
}

/** The bootstrap file's feeds, as entries: written after the seals, as the file lists them. */
export function feedBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return bootstrap.feeds.map((feed) => ({
    kind: "feed",
    key: feed.tenant,
    value: feed,
    apply: (tx: Queryable) => upsertFeed(tx, feed),
  }));
}

async function* directoryEntries(
  tx: Queryable,
  tenants: readonly { id: string; domain: string }[],
  type: "dept" | "post",
) {
  for (const tenant of tenants) {
    for await (const entry of everyRow<DirectoryEntryRecord, string>(
      (after, limit) => directoryEntryPage(tx, tenant.id, type, after, limit),
      (row) => row.code,
    )) {
      const { code, name, description, parent, formal } = entry;
      yield {
        key: `${tenant.domain}/${code}`,
        entry: withoutUnset({ tenant: tenant.domain, code, name, description, parent, formal }),
      };
    }
  }
}

export const directorySectionExports: readonly SectionExport[] = [
  { section: "departments", entries: (tx, tenants) => directoryEntries(tx, tenants, "dept") },
  { section: "posts", entries: (tx, tenants) => directoryEntries(tx, tenants, "post") },
  {
    section: "positions",
    async *entries(tx, tenants) {
      for (const { id, domain } of tenants) {
        for await (const { account, dept, post, number } of everyRow<PositionRecord, PositionRecord>(
          (after, limit) => positionPage(tx, id, after, limit),
          (row) => row,
        )) {
          yield {
            key: `${domain}/${account} as ${dept}:${post}`,
            entry: withoutUnset({ tenant: domain, account, dept, post, number }),
          };
        }
      }
    },
  },
];

export const feedSectionExport: SectionExport = {
  section: "feeds",
  async *entries(tx, tenants) {
    for (const tenant of tenants) {
      const feed = await feedSettings(tx, tenant.id);
      if (!feed) continue;
      const { url, addresses, authorizationEnv, intervalSeconds, timeoutSeconds, enabled } = feed;
      yield {
        key: tenant.domain,
        entry: withoutUnset({
          tenant: tenant.domain,
          url,
          addresses,
          authorizationEnv,
          intervalSeconds,
          timeoutSeconds,
          enabled,
        }),
      };
    }
  },
};
