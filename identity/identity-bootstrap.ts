import type { Bootstrap } from "../contracts/bootstrap.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import {
  everyRow,
  type SectionExport,
  type TenantExport,
  withoutUnset,
} from "../runtime/bootstrap-export.ts";
import type { Queryable } from "../runtime/database.ts";
import { type ApplicationRecord, applicationPage, upsertApplication } from "./application-store.ts";
import { type TenantRecord, tenantPage, upsertTenant } from "./tenant-store.ts";
import { type UserRecord, upsertUser, userPage } from "./user-store.ts";

/** The bootstrap file's tenants, applications and accounts, as entries. */
export function identityBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return [
    ...bootstrap.tenants.map((tenant) => ({
      kind: "tenant",
      key: tenant.domain,
      value: tenant,
      apply: (tx: Queryable) => upsertTenant(tx, tenant),
    })),
    ...bootstrap.applications.map((application) => ({
      kind: "application",
      key: application.id,
      value: application,
      apply: (tx: Queryable) => upsertApplication(tx, application),
    })),
    ...bootstrap.users.map((user) => ({
      kind: "user",
      key: `${user.tenant}/${user.account}`,
      value: user,
      apply: (tx: Queryable) => upsertUser(tx, user),
    })),
  ];
}

function tenantEntry(tenant: TenantRecord) {
  const { domain, name, style, logo, banner, copyright, settings } = tenant;
  return withoutUnset({ domain, name, style, logo, banner, copyright, workflow: settings.workflow });
}

function applicationEntry(application: ApplicationRecord) {
  const { id, name, type, tenant, workflowCode, redirectUris, scopes, implicitAllowed, disabled } =
    application;
  const { grants, accessTokenTtlSeconds } = application;
  return withoutUnset({
    id,
    name,
    type,
    tenant,
    workflowCode,
    redirectUris,
    scopes,
    implicitAllowed,
    grants,
    accessTokenTtlSeconds,
    disabled,
  });
}

/** The tenants as the database holds them, as entries of a bootstrap document. */
export const tenantExport: TenantExport = async function* (tx) {
  for await (const tenant of everyRow<TenantRecord, string>(
    (after, limit) => tenantPage(tx, after, limit),
    (row) => row.domain,
  ))
    yield { tenant, key: tenant.domain, entry: tenantEntry(tenant) };
};

export const identitySectionExports: readonly SectionExport[] = [
  {
    section: "applications",
    async *entries(tx) {
      for await (const application of everyRow<ApplicationRecord, string>(
        (after, limit) => applicationPage(tx, { after, limit }),
        (row) => row.id,
      ))
        yield { key: application.id, entry: applicationEntry(application) };
    },
  },
  {
    section: "users",
    async *entries(tx, tenants) {
      for (const tenant of tenants) {
        // An account the enterprise feed manages follows the feed, which the document carries.
        for await (const user of everyRow<UserRecord, string>(
          (after, limit) => userPage(tx, tenant.id, { after, limit, notFromFeed: true }),
          (row) => row.account,
        )) {
          const { account, name, email, phone, mailEnabled, disabled } = user;
          yield {
            key: `${tenant.domain}/${account}`,
            entry: withoutUnset({
              tenant: tenant.domain,
              account,
              name,
              email,
              phone,
              mailEnabled,
              disabled,
            }),
          };
        }
      }
    },
  },
];
