import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { type BootstrapChannel, bootstrapChannelSchema, bootstrapSchema } from "../../contracts/bootstrap.ts";
import { isBuiltInChannel } from "../../contracts/channels.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { jsonNestsDeeperThan, tooDeepDetail } from "../../contracts/json-nesting.ts";
import {
  channelRuleViolations,
  type NotificationBody,
  notificationBodySchema,
} from "../../contracts/notification.ts";
import { firstIssueMessage } from "../../contracts/validation-issue.ts";
import { applicationById } from "../../identity/application-store.ts";
import { channelBootstrapEntries } from "../../notifications/channel-bootstrap.ts";
import { maskedChannelConfig } from "../../notifications/channel-plugins.ts";
import { allChannels } from "../../notifications/channel-store.ts";
import {
  newNotificationId,
  publishDeliveries,
  recordNotification,
} from "../../notifications/notification-delivery.ts";
import { applyBootstrap } from "../../runtime/bootstrap.ts";
import { ConfigError } from "../../runtime/config.ts";
import type { GatewayDeps } from "../gateway-env.ts";
import { channelEditView, channelsView } from "./channels-views.tsx";
import {
  type ConsoleApp,
  type ConsoleContext,
  checked,
  consolePage,
  pageSession,
  redirectWith,
  render,
} from "./console-page.ts";

const nameSchema = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "a channel's name");
/** A channel's entry is small: a few settings and credentials. */
const ENTRY_MAX_CHARS = 64 * 1024;
const testSchema = z.object({
  channel: nameSchema,
  recipient: z.string().trim().min(1).max(320),
  application: z.string().max(64).optional(),
  subject: z.string().max(99).optional(),
  text: z.string().trim().min(1).max(2000),
});

function masked(channel: BootstrapChannel): BootstrapChannel {
  return { ...channel, config: maskedChannelConfig(channel.config) };
}

/** The edited entry's configuration with each value left masked given back its stored value. */
function unmasked(config: Record<string, unknown>, stored: BootstrapChannel): Record<string, unknown> {
  const shown = maskedChannelConfig(stored.config);
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      const wasMasked = Object.hasOwn(shown, key) && !isDeepStrictEqual(shown[key], stored.config[key]);
      return [key, wasMasked && isDeepStrictEqual(value, shown[key]) ? stored.config[key] : value];
    }),
  );
}

/** A test message's body: the recipient in the list the channel reads, checked by spec 000's rules. */
function testBody(
  input: z.infer<typeof testSchema>,
  external: ReadonlySet<string>,
): NotificationBody & { id: string } {
  const { channel, recipient, text } = input;
  const name = input.subject || "Test message";
  const person = recipient.includes("@")
    ? { email: recipient }
    : /^\+?[0-9][0-9 -]{2,}$/.test(recipient)
      ? { phone: recipient }
      : { account: recipient };
  const lists: Record<string, Partial<NotificationBody>> = {
    email: { emails: [recipient] },
    sms: { phones: [recipient] },
    app: { accounts: [recipient] },
  };
  const body = {
    id: newNotificationId(),
    channels: [channel],
    name,
    content: text,
    ...(lists[channel] ?? { users: [person] }),
  };
  const shaped = notificationBodySchema.safeParse(body);
  if (!shaped.success)
    throw new PlatformError(ErrorCode.InvalidArgument, firstIssueMessage(shaped.error.issues));
  const [violation] = channelRuleViolations(shaped.data, external);
  if (violation)
    throw new PlatformError(ErrorCode.InvalidArgument, `${violation.field}: ${violation.message}`);
  return { ...shaped.data, id: body.id };
}

/**
 * Channels: the list with credentials masked, one entry edited as JSON and applied as PUT
 * /admin/bootstrap applies its channels, and a test message through the notification pipeline.
 */
export function channelPages(app: ConsoleApp, deps: GatewayDeps) {
  const sql = deps.db.sql;

  async function channelNamed(name: string): Promise<BootstrapChannel> {
    const channel = (await allChannels(sql)).find((candidate) => candidate.name === name);
    if (!channel) throw new PlatformError(ErrorCode.NotFound, `No channel ${name}.`);
    return channel;
  }
  const nameOf = (c: ConsoleContext) => checked(nameSchema, c.req.param("name"), "name");

  consolePage(app, "/channels", {
    get: async (c) => {
      const channels = (await allChannels(sql)).map(masked);
      return render(c, channelsView({ session: pageSession(c), channels }));
    },
  });

  consolePage(app, "/channels/test-message", {
    post: async (c) => {
      const form = c.get("form");
      const input = checked(testSchema, {
        channel: form.get("channel"),
        recipient: form.get("recipient"),
        application: form.get("application") || undefined,
        subject: form.get("subject") || undefined,
        text: form.get("text"),
      });
      const channels = await allChannels(sql);
      const channel = channels.find((candidate) => candidate.name === input.channel);
      if (!channel) throw new PlatformError(ErrorCode.NotFound, `No channel ${input.channel}.`);
      const applicationId =
        input.application ?? channel.operatorApplication ?? channel.permittedApplications[0];
      if (!applicationId)
        throw new PlatformError(
          ErrorCode.InvalidArgument,
          "application: name the application the test is sent as",
        );
      if (!(await applicationById(sql, applicationId)))
        throw new PlatformError(ErrorCode.NotFound, `No application ${applicationId}.`);
      const external = new Set(channels.map((each) => each.name).filter((name) => !isBuiltInChannel(name)));
      const body = testBody(input, external);
      if (!deps.broker.isConnected())
        throw new PlatformError(ErrorCode.Unavailable, "message broker unavailable: not connected");
      const { tasks } = await recordNotification(sql, {
        id: body.id,
        applicationId,
        senderUserId: null,
        tenantId: null,
        body,
      });
      await publishDeliveries(deps.jobs, tasks);
      deps.log.info({ notification: body.id, channel: channel.name }, "test message sent from the console");
      const text = `Test message sent on ${channel.name} as ${applicationId}: its task follows.`;
      return redirectWith(c, `/console/notifications?id=${body.id}`, { kind: "done", text });
    },
  });

  consolePage(app, "/channels/:name", {
    get: async (c) => {
      const channel = masked(await channelNamed(nameOf(c)));
      const text = JSON.stringify(channel, null, 2);
      return render(c, channelEditView({ session: pageSession(c), name: channel.name, text }));
    },
    post: async (c) => {
      const name = nameOf(c);
      const stored = await channelNamed(name);
      const text = c.get("form").get("entry") ?? "";
      const refuse = (error: string) =>
        render(c, channelEditView({ session: pageSession(c), name, text, error }), 400);
      if (text.length > ENTRY_MAX_CHARS)
        return refuse(`The entry is longer than ${ENTRY_MAX_CHARS} characters.`);
      const maxDepth = deps.config.http.jsonMaxDepth;
      if (jsonNestsDeeperThan(text, maxDepth)) return refuse(`The entry's ${tooDeepDetail(maxDepth)}.`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        return refuse(`The entry is not JSON: ${(error as Error).message}`);
      }
      const parsed = bootstrapChannelSchema.safeParse(json);
      if (!parsed.success) return refuse(firstIssueMessage(parsed.error.issues, { root: "entry" }));
      if (parsed.data.name !== name) return refuse(`name: this page edits ${name}; its name stays.`);
      const channel = { ...parsed.data, config: unmasked(parsed.data.config, stored) };
      try {
        await applyBootstrap(
          sql,
          bootstrapSchema.parse({ channels: [channel] }),
          deps.log,
          "all",
          channelBootstrapEntries,
        );
      } catch (error) {
        if (error instanceof ConfigError) return refuse(error.message);
        throw error;
      }
      await deps.db.changes.announce({ kind: "configuration" });
      deps.log.info({ channel: name }, "channel applied in the console");
      return redirectWith(c, "/console/channels", {
        kind: "done",
        text: `Channel ${name} is applied; every process follows within seconds.`,
      });
    },
  });
}
