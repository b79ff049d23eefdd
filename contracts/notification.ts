import { z } from "zod";
import { firstIssueMessage } from "./validation-issue.ts";

export const RECIPIENTS_PER_LIST = 100;
export const NAME_LIMIT = 500;
export const SMS_TEXT_LIMIT = 2048;
export const APP_TEXT_LIMIT = 100;
export const APP_CONTENT_ENTRIES = 5;
export const APP_CONTENT_SERIALIZED_LIMIT = 1000;
export const APP_URL_LIMIT = 1024;
export const APP_URL_NAME_LIMIT = 20;
/** Spec 000: the outer `content` becomes the app message's one content entry when `app` is omitted. */
export const APP_OUTER_CONTENT_LIMIT = 1000;
/** Spec 000: a fixed label meaning "content" for the entry made from the outer `content`. */
export const APP_CONTENT_LABEL = "内容";

const DISPLAY_STYLES = ["basic", "fee", "operation", "news", "todo"] as const;

export const appUrlSchema = z
  .object({
    url: z.string().min(1).max(APP_URL_LIMIT),
    urlName: z.string().max(APP_URL_NAME_LIMIT).optional(),
    urlType: z.enum(["cordova", "web", "button"]).default("web"),
  })
  .strict();

export const appContentEntrySchema = z
  .object({ name: z.string().min(1, "name is required"), value: z.string().min(1, "value is required") })
  .strict();

/** notification.App: the campus-mobile-app message, with spec 000's display-style rules. */
export const appMessageSchema = z
  .object({
    displayStyle: z.enum(DISPLAY_STYLES).default("basic"),
    title: z
      .string()
      .max(APP_TEXT_LIMIT - 1, `must be under ${APP_TEXT_LIMIT} characters`)
      .optional(),
    abstract: z
      .string()
      .max(APP_TEXT_LIMIT - 1, `must be under ${APP_TEXT_LIMIT} characters`)
      .optional(),
    pictureUrl: z.string().max(APP_URL_LIMIT).optional(),
    pushUrl: z.string().max(APP_URL_LIMIT).optional(),
    content: z
      .array(appContentEntrySchema)
      .max(APP_CONTENT_ENTRIES, `at most ${APP_CONTENT_ENTRIES} entries`)
      .optional(),
    urls: z.array(appUrlSchema).max(20).optional(),
    expireTime: z.number().int().min(0).optional(),
  })
  .strict()
  .superRefine((app, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    const news = app.displayStyle === "news";
    const textStyles =
      app.displayStyle === "basic" || app.displayStyle === "fee" || app.displayStyle === "operation";
    if (news) {
      if (app.title !== undefined) issue("title", "is not supported for the news style");
      if (app.abstract !== undefined) issue("abstract", "is not supported for the news style");
      if (app.content !== undefined) issue("content", "is not supported for the news style");
      if (!app.pictureUrl) issue("pictureUrl", "is required for the news style");
    } else if (app.pictureUrl !== undefined) {
      issue("pictureUrl", "is supported only for the news style");
    }
    if (textStyles && !app.abstract) issue("abstract", `is required for the ${app.displayStyle} style`);
    if (app.content && JSON.stringify(app.content).length > APP_CONTENT_SERIALIZED_LIMIT) {
      issue("content", `serialized must be at most ${APP_CONTENT_SERIALIZED_LIMIT} characters`);
    }
  });

/** A user's tenant, as the workflow platform's profile carries it (spec 001 1.1). */
export const notificationEnterpriseSchema = z
  .object({
    id: z.string().max(64).optional(),
    name: z.string().max(200).optional(),
    domain: z.string().max(253).optional(),
    style: z.string().max(2000).nullable().optional(),
    logo: z.string().max(2000).nullable().optional(),
    banner: z.string().max(2000).nullable().optional(),
    copyright: z.string().max(2000).nullable().optional(),
  })
  .strict();

/**
 * A recipient of an external channel, in the profile's shape. `enterprise` may be given; when it
 * is not, the worker fills in the sending tenant so the channel always sees it.
 */
export const notificationUserSchema = z
  .object({
    id: z.string().max(64).optional(),
    name: z.string().max(200).optional(),
    account: z.string().max(200).optional(),
    email: z.string().max(320).optional(),
    phone: z.string().max(32).optional(),
    enterprise: notificationEnterpriseSchema.optional(),
  })
  .strict();

const recipients = (what: string) =>
  z.array(z.string().max(320)).max(RECIPIENTS_PER_LIST, `at most ${RECIPIENTS_PER_LIST} ${what}`);

/** The body of `PUT /v1/notification` as spec 000 shapes it, before the per-channel rules. */
export const notificationBodySchema = z
  .object({
    id: z.uuid("must be a GUID").optional(),
    name: z.string().max(NAME_LIMIT, `at most ${NAME_LIMIT} characters`).optional(),
    content: z.string().max(100_000).optional(),
    html: z.string().max(1_000_000).optional(),
    abstract: z.string().max(100_000).optional(),
    app: appMessageSchema.optional(),
    phones: recipients("phones").optional(),
    emails: recipients("emails").optional(),
    accounts: recipients("accounts").optional(),
    users: z
      .array(notificationUserSchema)
      .max(RECIPIENTS_PER_LIST, `at most ${RECIPIENTS_PER_LIST} users`)
      .optional(),
    channels: z
      .array(z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, "channel names are lower-case words"))
      .min(1, "at least one channel is required")
      .max(20),
  })
  .strict();

export type NotificationBody = z.infer<typeof notificationBodySchema>;
export type NotificationUser = z.infer<typeof notificationUserSchema>;
export type NotificationEnterprise = z.infer<typeof notificationEnterpriseSchema>;

export interface RuleViolation {
  field: string;
  message: string;
}

const nonEmpty = (value: string | undefined): value is string => value !== undefined && value !== "";

/** The message-app template content: a template id and a data map of `{value}` objects. */
export const templateContentSchema = z
  .object({
    template_id: z.string().min(1, "template_id is required"),
    data: z.record(
      z.string(),
      z.object({ value: z.union([z.string(), z.number()]), color: z.string().optional() }).strict(),
    ),
  })
  .passthrough();

/**
 * Spec 000's per-channel rules, checked after the shape: each channel's required fields, the
 * limits that depend on which field wins, and the `app_sms` pairing of phones and accounts.
 * `externalChannels` are the names operators configured; other unknown names are errors.
 */
export function channelRuleViolations(
  body: NotificationBody,
  externalChannels: ReadonlySet<string>,
): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const violate = (field: string, message: string) => violations.push({ field, message });
  const has = (list: readonly unknown[] | undefined) => list !== undefined && list.length > 0;
  const channels = [...new Set(body.channels)];
  for (const channel of channels) {
    const rule = `for channel ${channel}`;
    switch (channel) {
      case "email":
        if (!nonEmpty(body.name)) violate("name", `is required ${rule}`);
        if (!has(body.emails)) violate("emails", `are required ${rule}`);
        if (!nonEmpty(body.content) && !nonEmpty(body.html))
          violate("content", `or html is required ${rule}`);
        break;
      case "sms": {
        if (!has(body.phones)) violate("phones", `are required ${rule}`);
        const text = nonEmpty(body.abstract) ? "abstract" : nonEmpty(body.content) ? "content" : undefined;
        if (!text) violate("abstract", `or content is required ${rule}`);
        else if ((body[text] ?? "").length > SMS_TEXT_LIMIT) {
          violate(text, `must be at most ${SMS_TEXT_LIMIT} characters ${rule}`);
        }
        break;
      }
      case "app":
      case "app_sms": {
        if (!has(body.accounts)) violate("accounts", `are required ${rule}`);
        if (
          channel === "app" &&
          !nonEmpty(body.name) &&
          !nonEmpty(body.app?.title) &&
          !nonEmpty(body.app?.abstract)
        ) {
          violate("name", `or app.title or app.abstract must not be empty ${rule}`);
        }
        if (!body.app) {
          if (nonEmpty(body.name) && body.name.length >= APP_TEXT_LIMIT) {
            violate(
              "name",
              `must be under ${APP_TEXT_LIMIT} characters ${rule} when app is omitted (it becomes app.abstract)`,
            );
          }
          const outer = nonEmpty(body.content) ? "content" : "abstract";
          if ((body[outer] ?? "").length > APP_OUTER_CONTENT_LIMIT) {
            violate(
              outer,
              `must be at most ${APP_OUTER_CONTENT_LIMIT} characters ${rule} when app is omitted`,
            );
          }
        }
        if (channel === "app_sms") {
          if (!has(body.phones)) violate("phones", `are required ${rule}`);
          else if (has(body.accounts) && body.phones!.length !== body.accounts!.length) {
            violate(
              "phones",
              `must match accounts one to one ${rule} (${body.phones!.length} phones, ${body.accounts!.length} accounts)`,
            );
          }
          const text = nonEmpty(body.content) ? "content" : nonEmpty(body.abstract) ? "abstract" : undefined;
          if (!text) violate("content", `or abstract is required ${rule}`);
          else if ((body[text] ?? "").length > SMS_TEXT_LIMIT) {
            violate(text, `must be at most ${SMS_TEXT_LIMIT} characters ${rule}`);
          }
        }
        break;
      }
      case "msgapp_template": {
        if (!has(body.users)) violate("users", `are required ${rule}`);
        else if (body.users!.some((user) => !nonEmpty(user.account)))
          violate("users", `each need an account ${rule}`);
        if (!nonEmpty(body.content)) {
          violate("content", `is required ${rule}`);
          break;
        }
        let json: unknown;
        try {
          json = JSON.parse(body.content);
        } catch {
          violate("content", `must be a JSON string ${rule}`);
          break;
        }
        const template = templateContentSchema.safeParse(json);
        if (!template.success) {
          violate("content", `${firstIssueMessage(template.error.issues)} ${rule}`);
        }
        break;
      }
      default:
        if (!externalChannels.has(channel)) violate("channels", `has unknown channel ${channel}`);
        else if (!has(body.users)) violate("users", `are required ${rule}`);
    }
  }
  return violations;
}

/** The campus-app message a notification makes, after spec 000's substitutions. */
export interface AppMessage {
  displayStyle: (typeof DISPLAY_STYLES)[number];
  title?: string;
  abstract?: string;
  pictureUrl?: string;
  pushUrl?: string;
  content?: { name: string; value: string }[];
  urls?: { url: string; urlName?: string; urlType: "cordova" | "web" | "button" }[];
  expireTime?: number;
}

/**
 * Spec 000: without `app`, `name` becomes the abstract and `content` (or, when empty, `abstract`)
 * the single content entry; with `app`, its fields govern. The headline is `name`, else
 * `app.title`, else `app.abstract`; the tap target is `pushUrl`, else the first of `urls`.
 */
export function appMessageOf(body: NotificationBody): AppMessage {
  const text = body.content || body.abstract;
  if (!body.app) {
    return {
      displayStyle: "basic",
      ...(body.name ? { title: body.name, abstract: body.name } : {}),
      ...(text ? { content: [{ name: APP_CONTENT_LABEL, value: text }] } : {}),
    };
  }
  const { app } = body;
  const title = body.name || app.title || app.abstract;
  const pushUrl = app.pushUrl ?? app.urls?.[0]?.url;
  return {
    ...app,
    ...(title ? { title } : {}),
    ...(pushUrl ? { pushUrl } : {}),
  };
}
