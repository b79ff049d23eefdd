import { BOOTSTRAP_SECTION_MAX, type Bootstrap } from "../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { tenantByDomain } from "../identity/tenants.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import { everyRow, type SectionExport, withoutUnset } from "../runtime/bootstrap-export.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";
import { type SealKey, type SealRecord, sealImageByCode, sealPage, upsertSeal } from "./seal-store.ts";

/** The seal images an export carries at most, in bytes: the document is built in memory. */
export const EXPORT_MAX_SEAL_BYTES = 64 * 1024 * 1024;

/** The bootstrap file's seals, as entries. */
export function sealBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return bootstrap.seals.map((seal) => ({
    kind: "seal",
    key: `${seal.tenant ?? ""}/${seal.code}`,
    value: seal,
    async apply(tx: Queryable) {
      const tenant = seal.tenant ? await tenantByDomain(tx, seal.tenant) : undefined;
      if (seal.tenant && !tenant) throw new ConfigError(`seal ${seal.code}: no tenant ${seal.tenant}`);
      await upsertSeal(tx, seal, tenant?.id ?? null);
    },
  }));
}

/** The seals, with their images as data URIs; more image bytes than an export carries is a conflict. */
export const sealSectionExport: SectionExport = {
  section: "seals",
  async *entries(tx, tenants) {
    const seals: SealRecord[] = [];
    let bytes = 0;
    for await (const seal of everyRow<SealRecord, SealKey>(
      (after, limit) => sealPage(tx, after, limit),
      (row) => ({ code: row.code, tenant: row.tenant ?? "" }),
    )) {
      bytes += seal.size;
      if (bytes > EXPORT_MAX_SEAL_BYTES || seals.length >= BOOTSTRAP_SECTION_MAX.seals) {
        throw new PlatformError(
          ErrorCode.Conflict,
          `the seals are more than an export carries (${BOOTSTRAP_SECTION_MAX.seals} seals, ${EXPORT_MAX_SEAL_BYTES} bytes of images)`,
        );
      }
      seals.push(seal);
    }
    const tenantIds = new Map(tenants.map((tenant) => [tenant.domain, tenant.id]));
    for (const { code, tenant, name, width, height } of seals) {
      const owner = tenant === null ? null : tenantIds.get(tenant)!;
      const found = await sealImageByCode(tx, code, owner);
      if (!found) continue;
      const image = `data:image/png;base64,${found.image.toString("base64")}`;
      yield {
        key: `${tenant ?? ""}/${code}`,
        entry: withoutUnset({ code, tenant, name, image, width, height }),
      };
    }
  },
};
