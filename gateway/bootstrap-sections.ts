import type { Bootstrap } from "../contracts/bootstrap.ts";
import {
  directoryBootstrapEntries,
  directorySectionExports,
  feedBootstrapEntries,
  feedSectionExport,
} from "../directory/directory-bootstrap.ts";
import {
  identityBootstrapEntries,
  identitySectionExports,
  tenantExport,
} from "../identity/identity-bootstrap.ts";
import { channelBootstrapEntries } from "../notifications/channel-bootstrap.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import { type BootstrapExport, exportBootstrap } from "../runtime/bootstrap-export.ts";
import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { sealBootstrapEntries, sealSectionExport } from "../seals/seal-bootstrap.ts";
import { tenantDataBootstrapEntries, tenantDataSectionExports } from "../tenant/tenant-bootstrap.ts";
import {
  tenantAdministratorBootstrapEntries,
  tenantAdministratorSectionExport,
} from "../workflow/tenant-administrators.ts";
import { workflowBootstrapEntries } from "../workflow/workflow-deployment.ts";
import { workflowSectionExport } from "../workflow/workflow-export.ts";

/**
 * Every entry of a bootstrap file, as the capabilities that own its sections make them: a tenant
 * before what belongs to it, the way the file lists them.
 */
export function bootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return [
    ...identityBootstrapEntries(bootstrap),
    ...directoryBootstrapEntries(bootstrap),
    ...tenantDataBootstrapEntries(bootstrap),
    ...sealBootstrapEntries(bootstrap),
    ...feedBootstrapEntries(bootstrap),
    ...channelBootstrapEntries(bootstrap),
    ...workflowBootstrapEntries(bootstrap),
    ...tenantAdministratorBootstrapEntries(bootstrap),
  ];
}

/** The configuration the database holds as a bootstrap document, every section's owner reading its own. */
export function exportBootstrapDocument(sql: Sql, log: Logger): Promise<BootstrapExport> {
  return exportBootstrap(sql, log, tenantExport, [
    ...identitySectionExports,
    ...directorySectionExports,
    ...tenantDataSectionExports,
    sealSectionExport,
    feedSectionExport,
    workflowSectionExport,
    tenantAdministratorSectionExport,
  ]);
}
