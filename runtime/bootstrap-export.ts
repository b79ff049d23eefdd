import type { z } from "zod";
import {
  BOOTSTRAP_SECTION_MAX,
  type Bootstrap,
  bootstrapApplicationSchema,
  bootstrapDepartmentSchema,
  bootstrapPositionSchema,
  bootstrapPostSchema,
  bootstrapSealSchema,
  bootstrapTenantSchema,
  bootstrapUserSchema,
  bootstrapWorkflowSchema,
} from "../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { bootstrapFeedSchema } from "../contracts/feed.ts";
import { firstIssueMessage } from "../contracts/validation-issue.ts";
import { type Queryable, type Sql, transaction } from "./database.ts";
import type { Logger } from "./logger.ts";
import { type ApplicationRecord, applicationPage } from "./store/applications.ts";
import { feedSettings } from "./store/feeds.ts";
import { type PositionRecord, positionPage } from "./store/positions.ts";
import { type SealKey, type SealRecord, sealImageByCode, sealPage } from "./store/seals.ts";
import { type Tenant, type TenantRecord, tenantPage } from "./store/tenants.ts";
import { type DirectoryEntryRecord, directoryEntryPage } from "./store/triples.ts";
import { type UserRecord, userPage } from "./store/users.ts";

/**
 * What the database holds, as a bootstrap document: without secrets (applications keep theirs,
 * accounts their passwords, when it is applied) and without `channels`, which are not in the database.
 */
export type ExportedBootstrap = Omit<Bootstrap, "$schema" | "channels">;

export interface BootstrapExport {
  document: ExportedBootstrap;
  /** Entries the bootstrap schema cannot express (an account pushed with an e-mail it refuses), left out. */
  omitted: number;
}

/** The seal images an export carries at most, in bytes: the document is built in memory. */
export const EXPORT_MAX_SEAL_BYTES = 64 * 1024 * 1024;

/** A tenant's entries of a section whose statements live outside the runtime (its workflow apps). */
export type TenantEntries = (
  sql: Queryable,
  tenant: Tenant,
) => AsyncIterable<{ key: string; entry: unknown }>;

const PAGE = 500;

/** The object without its null and undefined fields: a bootstrap entry leaves out what is not set. */
export function withoutUnset<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== null && value !== undefined),
  ) as Partial<T>;
}

/** Every row a keyset-paged read gives, page after page. */
async function* everyRow<T, K>(
  read: (after: K | null, limit: number) => Promise<T[]>,
  keyOf: (row: T) => K,
): AsyncGenerator<T> {
  let after: K | null = null;
  for (;;) {
    const rows = await read(after, PAGE);
    yield* rows;
    if (rows.length < PAGE) return;
    after = keyOf(rows.at(-1)!);
  }
}

type SectionName = keyof ExportedBootstrap;

/** The entries of one section, each checked against its schema; one it refuses is left out and logged. */
class Section<S extends z.ZodType> {
  readonly entries: z.output<S>[] = [];
  omitted = 0;

  constructor(
    private readonly name: SectionName,
    private readonly schema: S,
    private readonly log: Logger,
  ) {}

  add(key: string, entry: unknown): void {
    const parsed = this.schema.safeParse(entry);
    if (!parsed.success) {
      this.omitted += 1;
      const problem = firstIssueMessage(parsed.error.issues);
      this.log.warn({ section: this.name, key, problem }, "bootstrap export leaves out an entry");
      return;
    }
    const max = BOOTSTRAP_SECTION_MAX[this.name];
    if (this.entries.length >= max) {
      throw new PlatformError(
        ErrorCode.Conflict,
        `the platform holds more ${this.name} than a bootstrap document takes (${max})`,
      );
    }
    this.entries.push(parsed.data);
  }
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

/** The seals, with their images as data URIs; more image bytes than an export carries is a conflict. */
async function exportSeals(
  tx: Queryable,
  tenants: ReadonlyMap<string, Tenant>,
  add: (key: string, entry: unknown) => void,
) {
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
  for (const { code, tenant, name, width, height } of seals) {
    const owner = tenant === null ? null : tenants.get(tenant)!.id;
    const found = await sealImageByCode(tx, code, owner);
    if (!found) continue;
    const image = `data:image/png;base64,${found.image.toString("base64")}`;
    add(`${tenant ?? ""}/${code}`, withoutUnset({ code, tenant, name, image, width, height }));
  }
}

/**
 * The configuration the database holds, as a bootstrap document, read in one snapshot: tenants,
 * applications, the accounts not managed by an enterprise feed, seals, feeds and (through
 * `workflows`) the workflow apps. Applying it changes nothing.
 */
export async function exportBootstrap(
  sql: Sql,
  log: Logger,
  workflows: TenantEntries,
): Promise<BootstrapExport> {
  return transaction(
    sql,
    async (tx) => {
      const sections = {
        tenants: new Section("tenants", bootstrapTenantSchema, log),
        applications: new Section("applications", bootstrapApplicationSchema, log),
        users: new Section("users", bootstrapUserSchema, log),
        departments: new Section("departments", bootstrapDepartmentSchema, log),
        posts: new Section("posts", bootstrapPostSchema, log),
        positions: new Section("positions", bootstrapPositionSchema, log),
        seals: new Section("seals", bootstrapSealSchema, log),
        feeds: new Section("feeds", bootstrapFeedSchema, log),
        workflows: new Section("workflows", bootstrapWorkflowSchema, log),
      };
      const tenants = new Map<string, Tenant>();
      for await (const tenant of everyRow<TenantRecord, string>(
        (after, limit) => tenantPage(tx, after, limit),
        (row) => row.domain,
      )) {
        tenants.set(tenant.domain, tenant);
        sections.tenants.add(tenant.domain, tenantEntry(tenant));
      }
      for await (const application of everyRow<ApplicationRecord, string>(
        (after, limit) => applicationPage(tx, { after, limit }),
        (row) => row.id,
      )) {
        sections.applications.add(application.id, applicationEntry(application));
      }
      for (const tenant of tenants.values()) {
        // An account the enterprise feed manages follows the feed, which the document carries.
        for await (const user of everyRow<UserRecord, string>(
          (after, limit) => userPage(tx, tenant.id, { after, limit, notFromFeed: true }),
          (row) => row.account,
        )) {
          const { account, name, email, phone, mailEnabled, disabled } = user;
          sections.users.add(
            `${tenant.domain}/${account}`,
            withoutUnset({ tenant: tenant.domain, account, name, email, phone, mailEnabled, disabled }),
          );
        }
      }
      for (const tenant of tenants.values()) {
        const { domain } = tenant;
        for (const type of ["dept", "post"] as const) {
          for await (const entry of everyRow<DirectoryEntryRecord, string>(
            (after, limit) => directoryEntryPage(tx, tenant.id, type, after, limit),
            (row) => row.code,
          )) {
            const { code, name, description, parent, formal } = entry;
            const section = type === "dept" ? sections.departments : sections.posts;
            section.add(
              `${domain}/${code}`,
              withoutUnset({ tenant: domain, code, name, description, parent, formal }),
            );
          }
        }
        for await (const { account, dept, post, number } of everyRow<PositionRecord, PositionRecord>(
          (after, limit) => positionPage(tx, tenant.id, after, limit),
          (row) => row,
        )) {
          sections.positions.add(
            `${domain}/${account} as ${dept}:${post}`,
            withoutUnset({ tenant: domain, account, dept, post, number }),
          );
        }
      }
      await exportSeals(tx, tenants, (key, entry) => sections.seals.add(key, entry));
      for (const tenant of tenants.values()) {
        const feed = await feedSettings(tx, tenant.id);
        if (!feed) continue;
        const { url, addresses, authorizationEnv, intervalSeconds, timeoutSeconds, enabled } = feed;
        sections.feeds.add(
          tenant.domain,
          withoutUnset({
            tenant: tenant.domain,
            url,
            addresses,
            authorizationEnv,
            intervalSeconds,
            timeoutSeconds,
            enabled,
          }),
        );
      }
      for (const tenant of tenants.values()) {
        for await (const { key, entry } of workflows(tx, tenant)) sections.workflows.add(key, entry);
      }
      const document: ExportedBootstrap = {
        tenants: sections.tenants.entries,
        applications: sections.applications.entries,
        users: sections.users.entries,
        departments: sections.departments.entries,
        posts: sections.posts.entries,
        positions: sections.positions.entries,
        seals: sections.seals.entries,
        feeds: sections.feeds.entries,
        workflows: sections.workflows.entries,
      };
      const omitted = Object.values(sections).reduce((sum, section) => sum + section.omitted, 0);
      return { document, omitted };
    },
    "isolation level repeatable read read only",
  );
}
