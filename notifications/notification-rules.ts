import { z } from "zod";
import type { BootstrapChannel } from "../contracts/bootstrap.ts";
import { isBuiltInChannel } from "../contracts/channels.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { jsonNestsDeeperThan, tooDeepDetail } from "../contracts/json-nesting.ts";
import {
  channelRuleViolations,
  type NotificationBody,
  RECIPIENTS_PER_LIST,
} from "../contracts/notification.ts";
import type { AccessClaims } from "../identity/access-tokens.ts";
import { accountOfUser } from "../identity/users.ts";
import type { Queryable } from "../runtime/database.ts";
import type { LiveChannels } from "./live-channels.ts";
import { type DeliveryQueue, newNotificationId, recordAndPublish } from "./notification-delivery.ts";
import { notificationById } from "./notification-store.ts";

/** The configured channels as spec 000's rules read them. */
export interface ChannelSettings {
  configured: ReadonlySet<string>;
  /** Configured channels that are plugins, not built in. */
  external: ReadonlySet<string>;
  /** By channel, the applications the operators approved for it. */
  permitted: ReadonlyMap<string, ReadonlySet<string>>;
  /** By application, the channels it operates (and may mark tasks of). */
  operatorChannels: ReadonlyMap<string, string[]>;
}

function channelSettingsOf(channels: readonly BootstrapChannel[]): ChannelSettings {
  const configured = new Set(channels.map((channel) => channel.name));
  const operatorChannels = new Map<string, string[]>();
  for (const channel of channels) {
    if (!channel.operatorApplication) continue;
    operatorChannels.set(channel.operatorApplication, [
      ...(operatorChannels.get(channel.operatorApplication) ?? []),
      channel.name,
    ]);
  }
  return {
    configured,
    external: new Set([...configured].filter((name) => !isBuiltInChannel(name))),
    permitted: new Map(channels.map((channel) => [channel.name, new Set(channel.permittedApplications)])),
    operatorChannels,
  };
}

/** The rules' view of the channels as configured now, worked out again only after a change. */
export function liveChannelSettings(channels: LiveChannels): () => ChannelSettings {
  let seen: readonly BootstrapChannel[] | undefined;
  let settings: ChannelSettings | undefined;
  return () => {
    if (channels.list !== seen) {
      seen = channels.list;
      settings = channelSettingsOf(seen);
    }
    return settings!;
  };
}

/** Who may send what, as docs/notifications.md states: password grant on every channel, client credentials on `app` only. */
function checkSender(token: AccessClaims, body: NotificationBody): void {
  if (token.grant === "password" && token.scopes.includes("send_notification")) return;
  if (token.kind === "sys" && token.scopes.includes("send_app_notification")) {
    const other = body.channels.find((channel) => channel !== "app");
    if (other) {
      throw new PlatformError(
        ErrorCode.PermissionDenied,
        `channel ${other} needs a password-grant token with send_notification; send_app_notification covers the app channel only`,
      );
    }
    return;
  }
  throw new PlatformError(
    ErrorCode.PermissionDenied,
    "sending needs a password-grant token with send_notification, or a client-credentials token with send_app_notification",
  );
}

/** A template message's content is JSON text, bounded as JSON in the body is. */
function checkContentNesting(body: NotificationBody, maxDepth: number): void {
  if (!body.channels.includes("msgapp_template") || body.content === undefined) return;
  if (jsonNestsDeeperThan(body.content, maxDepth)) {
    throw new PlatformError(ErrorCode.InvalidArgument, `content: ${tooDeepDetail(maxDepth)}`, {
      field: "content",
    });
  }
}

/** Spec 000's per-channel rules, and every channel asked for configured on this platform. */
function checkChannels(body: NotificationBody, channels: ChannelSettings): void {
  const [violation] = channelRuleViolations(body, channels.external);
  if (violation)
    throw new PlatformError(ErrorCode.InvalidArgument, `${violation.field}: ${violation.message}`, {
      field: violation.field,
    });
  const { configured } = channels;
  const missing = body.channels.find(
    (channel) => channel !== "app_sms" && isBuiltInChannel(channel) && !configured.has(channel),
  );
  const appSmsMissing =
    body.channels.includes("app_sms") && !(configured.has("app") && configured.has("sms"));
  if (missing || appSmsMissing) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `channels: ${missing ?? "app_sms (needs app and sms)"} is not configured on this platform`,
      { field: "channels" },
    );
  }
}

/**
 * Spec 000's sender preconditions: SMS from an `sms_` account, or from an application the
 * operators approved for SMS; campus-app messages only from approved applications. (E-mail from
 * an account without the mail service is accepted and reported on the task instead.)
 */
async function checkSenderPreconditions(
  sql: Queryable,
  token: AccessClaims,
  body: NotificationBody,
  permitted: ChannelSettings["permitted"],
): Promise<void> {
  const wants = (channel: string) => body.channels.includes(channel) || body.channels.includes("app_sms");
  if (wants("app") && !permitted.get("app")?.has(token.clientId)) {
    throw new PlatformError(
      ErrorCode.PermissionDenied,
      `application ${token.clientId} is not permitted to send campus-app messages; the platform operators grant it`,
    );
  }
  if (wants("sms") && !permitted.get("sms")?.has(token.clientId)) {
    const sender = token.userId ? await accountOfUser(sql, token.userId) : undefined;
    if (!sender?.startsWith("sms_")) {
      throw new PlatformError(
        ErrorCode.PermissionDenied,
        `SMS must come from an sms_ account, or from an application the platform operators approved for SMS`,
      );
    }
  }
}

export interface SendDeps extends DeliveryQueue {
  sql: Queryable;
  channels: () => ChannelSettings;
  /** How deep the JSON of a `msgapp_template` content may nest. */
  maxJsonDepth: number;
}

/**
 * Spec 000's send: the token and body checked against every rule, the notification recorded with
 * its delivery tasks and their jobs published. The same id again answers the notification as first
 * recorded and delivers nothing twice; an id another application used is refused.
 */
export async function sendNotification(
  deps: SendDeps,
  token: AccessClaims,
  body: NotificationBody,
): Promise<NotificationBody & { id: string }> {
  checkContentNesting(body, deps.maxJsonDepth);
  checkSender(token, body);
  const channels = deps.channels();
  checkChannels(body, channels);
  await checkSenderPreconditions(deps.sql, token, body, channels.permitted);
  const id = body.id ?? newNotificationId();
  const recorded = { ...body, id };
  return recordAndPublish(deps, async (record) => {
    const created = await record(deps.sql, {
      id,
      applicationId: token.clientId,
      senderUserId: token.kind === "user" ? token.userId! : null,
      tenantId: token.tenantId ?? null,
      body: recorded,
    });
    if (created) return recorded;
    const existing = await notificationById(deps.sql, id);
    if (existing?.applicationId !== token.clientId) {
      throw new PlatformError(ErrorCode.Conflict, `id ${id} is already used by another notification`, {
        field: "id",
      });
    }
    return { ...existing.body, id };
  });
}

/** The notification ids a status query names (repeated, or separated by commas), checked. */
export function notificationIdsOf(values: string[]): string[] {
  const ids = [
    ...new Set(
      values
        .flatMap((value) => value.split(","))
        .map((value) => value.trim())
        .filter(Boolean),
    ),
  ];
  if (ids.length === 0)
    throw new PlatformError(ErrorCode.InvalidArgument, "id: at least one notification id is required", {
      field: "id",
    });
  if (ids.length > RECIPIENTS_PER_LIST)
    throw new PlatformError(ErrorCode.InvalidArgument, "id: at most 100 notification ids", {
      field: "id",
    });
  const bad = ids.find((id) => !z.uuid().safeParse(id).success);
  if (bad) throw new PlatformError(ErrorCode.InvalidArgument, `id: ${bad} is not a GUID`, { field: "id" });
  return ids;
}
