import { z } from "zod";
import { deployableDefinitionSchema } from "./deployable-definition.ts";
import { bootstrapFeedSchema } from "./feed.ts";
import { APPLICATION_GRANTS, MAX_ACCESS_TOKEN_TTL_SECONDS } from "./scopes.ts";
import { bootstrapMembershipSchema, bootstrapTagSchema } from "./tenant-data.ts";

/**
 * The supervision reminder of spec 001 4.9: the channel it goes out on (a channel of the
 * `channels` section) and its text, in which `{process}`, `{step}` and `{entry}` are replaced by
 * the process's name, the step's name and the serial number. `title` (default `{process}: {step}`)
 * is the e-mail subject and the campus-app title. The limits keep a reminder within every
 * channel's rules.
 */
export const workflowReminderSchema = z
  .object({
    channel: z
      .string()
      .regex(/^[a-z][a-z0-9_.-]{0,63}$/, "a channel's name")
      .refine((name) => name !== "msgapp_template", "msgapp_template sends templates, not a reminder's text"),
    title: z.string().min(1).max(99).optional(),
    text: z.string().min(1).max(1000),
  })
  .strict();

/** The text of one kind of workflow notification; `{process}`, `{step}` and `{entry}` are filled in. */
const workflowNotifyTextSchema = z
  .object({ title: z.string().min(1).max(99).optional(), text: z.string().min(1).max(1000) })
  .strict();

/**
 * Notifications to people of what the engine does (beyond spec 001): "new to-do" to a task's
 * candidates and delegates, "copied to you" to a copy's readers, on the channel named (a channel of
 * the `channels` section), sent as `application` (its status API shows them). Off unless `on`; a
 * kind without its text is not sent.
 */
export const workflowNotifySchema = z
  .object({
    on: z.boolean().default(false),
    channel: workflowReminderSchema.shape.channel,
    application: z.string().min(1).max(128),
    todo: workflowNotifyTextSchema.optional(),
    cc: workflowNotifyTextSchema.optional(),
  })
  .strict();

/** Whether `name` is a time zone of the IANA database (`Europe/Paris`, `UTC`…) this runtime knows. */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Spec 001 8.x's statistics (docs/statistics.md): off unless `on`, so a tenant that does not look at
 * them spends nothing on them; days, weeks, months and years are those of `timeZone` (default UTC).
 */
export const workflowStatisticsSchema = z
  .object({
    on: z.boolean().default(false),
    timeZone: z
      .string()
      .min(1)
      .max(64)
      .refine(isTimeZone, "an IANA time zone, such as Europe/Paris")
      .default("UTC"),
  })
  .strict();

/**
 * Names the admin API uses where a tenant's domain goes (`/admin/workflows/outbox` beside
 * `/admin/workflows/{domain}`): a tenant of that domain could not be reached there.
 */
export const RESERVED_DOMAINS: ReadonlySet<string> = new Set(["outbox", "consistency", "callbacks"]);

/** A tenant (an enterprise of spec 001), identified by its unique domain. */
export const bootstrapTenantSchema = z
  .object({
    domain: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, "lower-case letters, digits, dots and hyphens")
      .refine((domain) => !RESERVED_DOMAINS.has(domain), "reserved for the admin API's own paths"),
    name: z.string().min(1).max(200),
    style: z.string().max(2000).optional(),
    logo: z.url().max(2048).optional(),
    banner: z.url().max(2048).optional(),
    copyright: z.string().max(500).optional(),
    /**
     * The tenant's workflow settings; without `reminder`, 4.9 is refused with REMINDER_NOT_CONFIGURED;
     * without `notify` (or with it not `on`), nobody is notified of new to-dos and copies; without
     * `statistics` (or with it not `on`), 8.x answers zero counts.
     */
    workflow: z
      .object({
        reminder: workflowReminderSchema.optional(),
        notify: workflowNotifySchema.optional(),
        statistics: workflowStatisticsSchema.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const domain = bootstrapTenantSchema.shape.domain;

/** An application (an OAuth2 client) and the scopes the operators approved for it. */
export const bootstrapApplicationSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._-]{3,64}$/, "3 to 64 letters, digits, dots, hyphens or underscores"),
    /**
     * At least 32 characters. Omitted (with no `secretEnv`): a new application is a public client
     * (authorization code with PKCE only); an existing one keeps the secret it has.
     */
    secret: z.string().min(32).max(256).optional(),
    /** The environment variable holding the secret, so the file can live in version control. */
    secretEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable's name")
      .optional(),
    name: z.string().min(1).max(200),
    type: z.enum(["global", "enterprise", "workflow"]).default("global"),
    /** Domain of the tenant an enterprise or workflow application belongs to. */
    tenant: domain.optional(),
    workflowCode: z.string().min(1).max(100).optional(),
    redirectUris: z.array(z.url().max(2048)).max(20).default([]),
    scopes: z.array(z.string().min(1).max(64)).max(200).default([]),
    implicitAllowed: z.boolean().default(false),
    /**
     * The grant types it may use (`refresh_token` included, for refresh tokens to be issued and
     * used); omitted: every grant its approved scopes allow. Another grant answers `unauthorized_client`.
     */
    grants: z
      .array(z.enum(APPLICATION_GRANTS))
      .max(APPLICATION_GRANTS.length)
      .refine((grants) => new Set(grants).size === grants.length, "each grant once")
      .optional(),
    /** Its access tokens' lifetime in seconds; omitted: ACCESS_TOKEN_TTL_SECONDS. */
    accessTokenTtlSeconds: z.number().int().min(1).max(MAX_ACCESS_TOKEN_TTL_SECONDS).optional(),
    /** A disabled application gets no tokens and its tokens stop working; omitted: left as it is. */
    disabled: z.boolean().optional(),
  })
  .strict()
  .refine((app) => app.secret === undefined || app.secretEnv === undefined, {
    message: "give the secret or the variable holding it, not both",
    path: ["secretEnv"],
  })
  .refine((app) => (app.type === "global") === (app.tenant === undefined), {
    message: "enterprise and workflow applications name their tenant; global ones do not",
    path: ["tenant"],
  })
  .refine((app) => (app.type === "workflow") === (app.workflowCode !== undefined), {
    message: "workflow applications, and only they, have a workflowCode",
    path: ["workflowCode"],
  });

/** A campus account. */
export const bootstrapUserSchema = z
  .object({
    tenant: domain,
    account: z.string().min(1).max(100),
    name: z.string().min(1).max(200),
    email: z.email().max(320).optional(),
    phone: z.string().min(3).max(32).optional(),
    /** Omitted: a new account cannot log in with a password; an existing one keeps the one it has. */
    password: z.string().min(8).max(1024).optional(),
    mailEnabled: z.boolean().default(false),
    /** A disabled account cannot sign in and its tokens stop working; omitted: left as it is. */
    disabled: z.boolean().optional(),
  })
  .strict();

const directoryCode = z
  .string()
  .regex(
    /^[^:*\s][^:*]{0,99}$/,
    "1 to 100 characters, without ':' or '*' (they separate and match positions)",
  );

/** A department of the tenant's directory (spec 001's `dept`); `parent` is another's code. */
export const bootstrapDepartmentSchema = z
  .object({
    tenant: domain,
    code: directoryCode,
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    parent: directoryCode.optional(),
  })
  .strict();

/** A post of the tenant's directory (spec 001's `post`): what someone is in a department. */
export const bootstrapPostSchema = z
  .object({
    tenant: domain,
    code: directoryCode,
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    /** A formal post (staff) rather than, say, a student's. */
    formal: z.boolean().default(false),
  })
  .strict();

/** A user of the `users` section holding a post in a department: the position `dept:post`. */
export const bootstrapPositionSchema = z
  .object({
    tenant: domain,
    account: z.string().min(1).max(100),
    dept: directoryCode,
    post: directoryCode,
    /** The student or staff number the user has in this position. */
    number: z.string().min(1).max(100).optional(),
  })
  .strict();

/** A seal image, at most 2 MB of PNG (as a base64 data URI, about 2.7 million characters). */
export const SEAL_IMAGE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * An electronic seal: spec 000's `eSignCode`, its PNG image (transparency kept) and the size it
 * is printed at, in points (1/72 inch). A seal with a tenant serves that tenant's applications;
 * one without serves every application.
 */
export const bootstrapSealSchema = z
  .object({
    code: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "1 to 64 letters, digits, dots, hyphens or underscores"),
    tenant: domain.optional(),
    name: z.string().min(1).max(200),
    /** A path to the PNG file (relative to the bootstrap file), or a `data:image/png;base64,…` URI. */
    image: z.string().min(1).max(2_900_000),
    width: z.number().positive().max(2000),
    height: z.number().positive().max(2000),
  })
  .strict();

/**
 * A notification channel: spec 000's built-in ones (`email`, `sms`, `app`, `msgapp_template`) or
 * an external channel by its name, each delivered through a plugin: a built-in plugin's name, a
 * path to a module, or an npm package name. The whole file is read by every process at start, so
 * plugin credentials never go into the database.
 */
export const bootstrapChannelSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "a lower-case word"),
    plugin: z.string().min(1).max(500),
    config: z.record(z.string(), z.unknown()).default({}),
    /** The application that runs the channel: it may mark the tasks delivered through it as read. */
    operatorApplication: z.string().max(64).optional(),
    /**
     * Applications the operators approved for this channel: for `sms`, those whose senders need
     * not be `sms_` accounts; for `app`, the only applications that may send app messages.
     */
    permittedApplications: z.array(z.string().max(64)).max(1000).default([]),
    /** Sends a second through this channel, per worker process; deliveries beyond it wait their turn. */
    ratePerSecond: z.number().positive().max(100_000).optional(),
    /** Sends in progress at once through this channel, per worker process; the rest wait their turn. */
    maxInFlight: z.number().int().min(1).max(1000).default(32),
  })
  .strict();

/** How many versions a workflow entry lists at most, and how many accounts each of its lists. */
export const WORKFLOW_VERSIONS_MAX = 50;
export const WORKFLOW_LIST_MAX = 1000;

/** The longest BPMN document a version may be given as, in characters. */
export const BPMN_MAX_CHARS = 4_000_000;

/** A version's fields: its definition (the JSON graph, or a BPMN 2.0 document compiled into one), and whether it is online. */
export const workflowVersionFieldsSchema = z
  .object({
    name: z.string().max(200).optional(),
    /** Online for formal data (`/apis/v2`). */
    online: z.boolean().default(false),
    /** Online for test data (`/apis/v2d`). */
    beta: z.boolean().default(false),
    definition: deployableDefinitionSchema.optional(),
    /** A BPMN 2.0 document with the platform's extension (docs/bpmn.md), instead of `definition`. */
    bpmn: z.string().min(1).max(BPMN_MAX_CHARS).optional(),
  })
  .strict();

/** Holds when a version has exactly one of `definition` and `bpmn`. */
export const hasOneDefinition = (version: { definition?: unknown; bpmn?: unknown }) =>
  (version.definition === undefined) !== (version.bpmn === undefined);
export const ONE_DEFINITION_MESSAGE = {
  message: "a version has a definition or a bpmn document, one of them",
  path: ["definition"],
};

/** A version of a workflow app: its definition, and whether it is online for formal or test starts. */
export const bootstrapWorkflowVersionSchema = workflowVersionFieldsSchema.refine(
  hasOneDefinition,
  ONE_DEFINITION_MESSAGE,
);

/**
 * A version deployed through the admin API or the console: as the bootstrap file's, except that an
 * `online` or `beta` left out changes nothing (a new version starts off line, one deployed before
 * keeps its state), where the file says how each version is.
 */
export const deployedVersionFieldsSchema = workflowVersionFieldsSchema.extend({
  online: z.boolean().optional(),
  beta: z.boolean().optional(),
});
export type DeployedVersionFields = z.infer<typeof deployedVersionFieldsSchema>;
export const deployedVersionSchema = deployedVersionFieldsSchema.refine(
  hasOneDefinition,
  ONE_DEFINITION_MESSAGE,
);

/** A position as a grant names it: `dept:post`, `*` for any department or post. */
const grantPositionSchema = z
  .string()
  .max(201)
  .regex(/^[^:,\s]{1,100}:[^:,\s]{1,100}$/, "a position dept:post, * for any department or post");

/** Whom a list grants to: accounts of the tenant, and whoever holds one of the positions at the time. */
export const granteeListSchema = z
  .object({
    accounts: z.array(z.string().min(1).max(100)).max(WORKFLOW_LIST_MAX).default([]),
    positions: z.array(grantPositionSchema).max(WORKFLOW_LIST_MAX).default([]),
  })
  .strict();

/** A workflow app of a tenant (spec 001's app of type Workflow) and its versions, oldest first. */
export const bootstrapWorkflowSchema = z
  .object({
    tenant: domain,
    code: z
      .string()
      .regex(
        /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
        "a letter, then letters, digits, dots, hyphens or underscores",
      ),
    name: z.string().min(1).max(200),
    abbreviation: z.string().max(100).optional(),
    description: z.string().max(2000).optional(),
    /** Comma separated; the first is the main category. */
    tags: z.string().max(500).optional(),
    icon: z.url().max(2048).optional(),
    palette: z
      .string()
      .regex(/^#[0-9A-Fa-f]{6}$/, "# and six hex digits")
      .optional(),
    department: z.string().max(200).optional(),
    contact: z.string().max(200).optional(),
    recommendation: z.number().int().min(0).max(1_000_000).optional(),
    visible: z.boolean().optional(),
    ready: z.boolean().optional(),
    /** Accounts of the tenant administering the app (4.3, 4.4, 4.12); given, it replaces the file's earlier list. */
    administrators: z.array(z.string().min(1).max(100)).max(WORKFLOW_LIST_MAX).optional(),
    /** Accounts of the tenant that may view the app's processes (4.3, 4.4); given, it replaces the file's earlier list. */
    guests: z.array(z.string().min(1).max(100)).max(WORKFLOW_LIST_MAX).optional(),
    /**
     * Who may start the app (2.1, 3.2, 4.10): accounts and positions; empty lists, or none given
     * ever, let everyone in the tenant start it. Given, it replaces the file's earlier list.
     */
    starters: granteeListSchema.optional(),
    versions: z.array(bootstrapWorkflowVersionSchema).min(1).max(WORKFLOW_VERSIONS_MAX),
  })
  .strict();

/**
 * A tenant's administrators (spec 001's `enterprise` W): they grant and revoke access to positions
 * (7.3, 7.4) with their own tokens. Given, the lists replace the file's earlier ones for the tenant.
 */
export const bootstrapTenantAdministratorsSchema = granteeListSchema.extend({ tenant: domain }).strict();

/** How many entries each section of a bootstrap document holds at most. */
export const BOOTSTRAP_SECTION_MAX = {
  tenants: 10_000,
  applications: 10_000,
  users: 100_000,
  departments: 100_000,
  posts: 10_000,
  positions: 200_000,
  channels: 100,
  seals: 10_000,
  feeds: 10_000,
  workflows: 1000,
  tags: 100_000,
  memberships: 10_000,
  tenantAdministrators: 10_000,
} as const;

/**
 * The declarative bootstrap file named by BOOTSTRAP_FILE, applied at start: what it lists is
 * created, or brought up to date when its entry changed since the file was last applied; what it
 * does not list is left alone.
 */
export const bootstrapSchema = z
  .object({
    $schema: z.string().optional(),
    tenants: z.array(bootstrapTenantSchema).max(BOOTSTRAP_SECTION_MAX.tenants).default([]),
    applications: z.array(bootstrapApplicationSchema).max(BOOTSTRAP_SECTION_MAX.applications).default([]),
    users: z.array(bootstrapUserSchema).max(BOOTSTRAP_SECTION_MAX.users).default([]),
    departments: z.array(bootstrapDepartmentSchema).max(BOOTSTRAP_SECTION_MAX.departments).default([]),
    posts: z.array(bootstrapPostSchema).max(BOOTSTRAP_SECTION_MAX.posts).default([]),
    positions: z.array(bootstrapPositionSchema).max(BOOTSTRAP_SECTION_MAX.positions).default([]),
    channels: z.array(bootstrapChannelSchema).max(BOOTSTRAP_SECTION_MAX.channels).default([]),
    seals: z.array(bootstrapSealSchema).max(BOOTSTRAP_SECTION_MAX.seals).default([]),
    feeds: z.array(bootstrapFeedSchema).max(BOOTSTRAP_SECTION_MAX.feeds).default([]),
    workflows: z.array(bootstrapWorkflowSchema).max(BOOTSTRAP_SECTION_MAX.workflows).default([]),
    tags: z.array(bootstrapTagSchema).max(BOOTSTRAP_SECTION_MAX.tags).default([]),
    memberships: z.array(bootstrapMembershipSchema).max(BOOTSTRAP_SECTION_MAX.memberships).default([]),
    tenantAdministrators: z
      .array(bootstrapTenantAdministratorsSchema)
      .max(BOOTSTRAP_SECTION_MAX.tenantAdministrators)
      .default([]),
  })
  .strict();

export type Bootstrap = z.infer<typeof bootstrapSchema>;
export type BootstrapTenant = z.infer<typeof bootstrapTenantSchema>;
export type WorkflowReminder = z.infer<typeof workflowReminderSchema>;
export type WorkflowNotify = z.infer<typeof workflowNotifySchema>;
export type WorkflowStatistics = z.infer<typeof workflowStatisticsSchema>;
export type BootstrapApplication = z.infer<typeof bootstrapApplicationSchema>;
export type BootstrapUser = z.infer<typeof bootstrapUserSchema>;
export type BootstrapDepartment = z.infer<typeof bootstrapDepartmentSchema>;
export type BootstrapPost = z.infer<typeof bootstrapPostSchema>;
export type BootstrapPosition = z.infer<typeof bootstrapPositionSchema>;
export type BootstrapSeal = z.infer<typeof bootstrapSealSchema>;
export type BootstrapChannel = z.infer<typeof bootstrapChannelSchema>;
export type BootstrapWorkflow = z.infer<typeof bootstrapWorkflowSchema>;

/** The app's fields a deployment may carry beside its version (`app`): those it changes. */
export const deployedAppFieldsSchema = bootstrapWorkflowSchema
  .omit({ tenant: true, code: true, versions: true })
  .partial();
export type GranteeList = z.infer<typeof granteeListSchema>;
export type BootstrapTenantAdministrators = z.infer<typeof bootstrapTenantAdministratorsSchema>;
