import { z } from "zod";
import { bootstrapChannelSchema } from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { jsonNestsDeeperThan, tooDeepDetail } from "../../contracts/json-nesting.ts";
import { firstIssueMessage } from "../../contracts/validation-issue.ts";
import {
  applyEditedChannel,
  maskedChannel,
  maskedChannels,
  storedChannel,
} from "../../notifications/channel-admin.ts";
import { sendTestMessage } from "../../notifications/test-message.ts";
import { ConfigError } from "../../runtime/config.ts";
import type { GatewayUses } from "../gateway-env.ts";
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

/**
 * Channels: the list with credentials masked, one entry edited as JSON and applied as PUT
 * /admin/bootstrap applies its channels, and a test message through the notification pipeline.
 */
export function channelPages(
  app: ConsoleApp,
  deps: GatewayUses<"broker" | "config" | "db" | "jobs" | "log">,
) {
  const sql = deps.db.sql;
  const changeDeps = { sql, changes: deps.db.changes, log: deps.log };
  const queue = { sql, jobs: deps.jobs, brokerConnected: () => deps.broker.isConnected() };

  async function channelNamed(name: string) {
    const channel = await storedChannel(sql, name);
    if (!channel) throw new PlatformError(ErrorCode.NotFound, `No channel ${name}.`);
    return channel;
  }
  const nameOf = (c: ConsoleContext) => checked(nameSchema, c.req.param("name"), "name");

  consolePage(app, "/channels", {
    get: async (c) => {
      const channels = await maskedChannels(sql);
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
      const { id, applicationId } = await sendTestMessage(queue, input);
      deps.log.info({ notification: id, channel: input.channel }, "test message sent from the console");
      const text = `Test message sent on ${input.channel} as ${applicationId}: its task follows.`;
      return redirectWith(c, `/console/notifications?id=${id}`, { kind: "done", text });
    },
  });

  consolePage(app, "/channels/:name", {
    get: async (c) => {
      const channel = maskedChannel(await channelNamed(nameOf(c)));
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
      try {
        await applyEditedChannel(changeDeps, stored, parsed.data);
      } catch (error) {
        if (error instanceof ConfigError) return refuse(error.message);
        throw error;
      }
      deps.log.info({ channel: name }, "channel applied in the console");
      return redirectWith(c, "/console/channels", {
        kind: "done",
        text: `Channel ${name} is applied; every process follows within seconds.`,
      });
    },
  });
}
