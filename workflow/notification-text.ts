import { isBuiltInChannel } from "../contracts/channels.ts";
import type { NotificationBody, NotificationUser } from "../contracts/notification.ts";
import type { ProfileView } from "./process-view-store.ts";

/*
 * The words of the notifications the workflow sends people (4.9's reminders, the notices of new
 * to-dos and copies): the text a tenant set, filled in, for the channel it named.
 */

/** Replaces `{process}`, `{step}` and `{entry}`; other braces are left as written. */
export function fill(template: string, words: Record<string, string>): string {
  return template.replace(/\{(process|step|entry)\}/g, (_whole, word: string) => words[word]!);
}

/** Whether the channel has an address of the person's to send to. */
export function reachableOn(channel: string, person: ProfileView): boolean {
  if (channel === "email") return Boolean(person.email);
  if (channel === "sms") return Boolean(person.phone);
  return Boolean(person.account) || (channel === "app_sms" && Boolean(person.phone));
}

/** The notification spec 000 would take for this channel: its recipient list and the text. */
export function bodyFor(
  channel: string,
  name: string,
  text: string,
  people: ProfileView[],
): NotificationBody {
  const common = { name, content: text, channels: [channel] };
  if (channel === "email") return { ...common, emails: people.map((person) => person.email!) };
  if (channel === "sms") return { ...common, phones: people.map((person) => person.phone!) };
  if (channel === "app") return { ...common, accounts: people.map((person) => person.account) };
  if (channel === "app_sms")
    return {
      ...common,
      accounts: people.map((person) => person.account),
      phones: people.map((person) => person.phone ?? ""),
    };
  const users: NotificationUser[] = people.map((person) => ({
    id: person.id,
    name: person.name,
    account: person.account,
    ...(person.email ? { email: person.email } : {}),
    ...(person.phone ? { phone: person.phone } : {}),
  }));
  return { ...common, users };
}

/** Whether the platform has the channel (`app_sms` needs both of its channels). */
export function channelConfigured(channel: string, configured: ReadonlySet<string>): boolean {
  return channel === "app_sms" ? configured.has("app") && configured.has("sms") : configured.has(channel);
}

/** The first 20 accounts and how many more, so a large group keeps a record short. */
export function listedAccounts(accounts: readonly string[]): string {
  const named = accounts.slice(0, 20);
  return accounts.length > named.length
    ? `${named.join(", ")} and ${accounts.length - named.length} more`
    : named.join(", ");
}

/** The channels operators configured: every name, and those that are not built in. */
export interface ReminderChannels {
  configured: ReadonlySet<string>;
  external: ReadonlySet<string>;
}

/** The channels a reminder or a notice may name: those configured now. */
export function configuredChannels(channels: readonly { name: string }[]): ReminderChannels {
  const configured = new Set(channels.map((channel) => channel.name));
  return { configured, external: new Set([...configured].filter((name) => !isBuiltInChannel(name))) };
}
