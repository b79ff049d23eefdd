import type { Bootstrap } from "../contracts/bootstrap.ts";
import { TENANT_MEMBERSHIPS_MAX, TENANT_TAGS_MAX } from "../contracts/tenant-data.ts";
import { tenantIdOf } from "../identity/tenants.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import { type SectionExport, withoutUnset } from "../runtime/bootstrap-export.ts";
import type { Queryable } from "../runtime/database.ts";
import { membershipsOf, putMembership } from "./memberships.ts";
import { putTag, tagsOf } from "./tags.ts";

/** The bootstrap file's tags and memberships, as entries: each created, or changed by its name. */
export function tenantDataBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return [
    ...bootstrap.tags.map(({ tenant, ...tag }) => ({
      kind: "tag",
      key: `${tenant}/${tag.name}`,
      value: { tenant, ...tag },
      apply: async (tx: Queryable) => putTag(tx, await tenantIdOf(tx, tenant, `tag ${tag.name}`), tag),
    })),
    ...bootstrap.memberships.map(({ tenant, ...membership }) => ({
      kind: "membership",
      key: `${tenant}/${membership.provider.toLowerCase()}`,
      value: { tenant, ...membership },
      apply: async (tx: Queryable) =>
        putMembership(tx, await tenantIdOf(tx, tenant, `membership ${membership.provider}`), membership),
    })),
  ];
}

export const tenantDataSectionExports: readonly SectionExport[] = [
  {
    section: "tags",
    async *entries(tx, tenants) {
      for (const tenant of tenants) {
        const { tags } = await tagsOf(tx, tenant.id, { start: 0, limit: TENANT_TAGS_MAX });
        for (const { id: _, ...tag } of tags)
          yield {
            key: `${tenant.domain}/${tag.name}`,
            entry: withoutUnset({ tenant: tenant.domain, ...tag }),
          };
      }
    },
  },
  {
    section: "memberships",
    async *entries(tx, tenants) {
      for (const tenant of tenants) {
        const page = { start: 0, limit: TENANT_MEMBERSHIPS_MAX };
        const { memberships } = await membershipsOf(tx, tenant.id, page);
        for (const { id: _, ...membership } of memberships) {
          const key = `${tenant.domain}/${membership.provider.toLowerCase()}`;
          yield { key, entry: withoutUnset({ tenant: tenant.domain, ...membership }) };
        }
      }
    },
  },
];
