/** Grant types of the authorization server, by the letters spec 000's scope table uses (A, C, P). */
export const Grant = {
  AuthorizationCode: "authorization_code",
  ClientCredentials: "client_credentials",
  Password: "password",
  /** Spec 001's implicit grant: user tokens straight from the authorization endpoint. */
  Implicit: "implicit",
} as const;

export type Grant = (typeof Grant)[keyof typeof Grant];

/** What an application's `grants` may list: the grants, and `refresh_token` for refresh tokens. */
export const APPLICATION_GRANTS = [...Object.values(Grant), "refresh_token"] as const;
export type ApplicationGrant = (typeof APPLICATION_GRANTS)[number];

/** No access token lives longer than a day, whatever its application's setting. */
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 86_400;

/** A user token acts for a user; a sys token (client credentials) for the application alone. */
export type TokenKind = "user" | "sys";

export interface ScopeDefinition {
  name: string;
  /** Spec 000's bit position: the scope's numeric value is `1 << bit`. Spec 001's scopes have none. */
  bit?: number;
  grants: readonly Grant[];
  meaning: string;
}

const A = Grant.AuthorizationCode;
const C = Grant.ClientCredentials;
const P = Grant.Password;
const I = Grant.Implicit;

/**
 * Spec 000's scope table, exactly, except `notifications` and `modify_notification`: the table
 * lists authorization code only, the operations that use them require client credentials, so
 * both grants are allowed. `profile`, which spec 001 also requires of user tokens, adds its implicit grant.
 */
const OPEN_API_SCOPES: readonly ScopeDefinition[] = [
  {
    name: "basic",
    bit: 0,
    grants: [A, C],
    meaning: "read user identifier (system id and account name) and name",
  },
  {
    name: "essential",
    bit: 1,
    grants: [A, C],
    meaning: "basic identity plus bound identities (identity id, type, department)",
  },
  {
    name: "profile",
    bit: 2,
    grants: [A, C, I],
    meaning: "detailed user info: identity, name, account info, mobile number, common e-mail",
  },
  { name: "unicode", bit: 3, grants: [A, C], meaning: "open, fetch or verify the campus unified code" },
  {
    name: "tasks",
    bit: 5,
    grants: [A, C],
    meaning:
      "read can-do, to-do, in-progress and done lists; read or count manageable workflows, instances and tasks",
  },
  { name: "messages", bit: 6, grants: [C], meaning: "read user messages" },
  { name: "notifications", bit: 7, grants: [A, C], meaning: "read user system notifications" },
  {
    name: "privacy",
    bit: 8,
    grants: [A],
    meaning: "read full user details including identity-document and birthday data",
  },
  {
    name: "introspect",
    bit: 9,
    grants: [C],
    meaning: "get details of an OAuth token; for API development only",
  },
  { name: "read_apps", bit: 10, grants: [C], meaning: "read application info" },
  { name: "write_apps", bit: 11, grants: [C], meaning: "create and modify application info" },
  { name: "exchange_data", bit: 12, grants: [C], meaning: "data exchange" },
  { name: "signature", bit: 17, grants: [A, C], meaning: "obtain a digital signature" },
  { name: "manage_card", bit: 20, grants: [A], meaning: "campus card management such as opening an account" },
  {
    name: "send_app_notification",
    bit: 23,
    grants: [C],
    meaning: "send campus-mobile-app notifications to users",
  },
  { name: "send_notification", bit: 25, grants: [P], meaning: "send notifications to users" },
  { name: "read_mails", bit: 26, grants: [A], meaning: "read user mail" },
  {
    name: "send_mail",
    bit: 27,
    grants: [A, P],
    meaning: "send mail on behalf of the user or change read state of mail",
  },
  {
    name: "storage",
    bit: 29,
    grants: [C, P],
    meaning: "full control of the application's unstructured storage",
  },
  { name: "modify_notification", bit: 30, grants: [A, C], meaning: "modify own notification status" },
  { name: "lessons", bit: 34, grants: [A], meaning: "user course information" },
  { name: "classes", bit: 35, grants: [A], meaning: "user timetable (including courses)" },
  { name: "exams", bit: 36, grants: [A], meaning: "user exam information" },
  { name: "scores", bit: 37, grants: [A], meaning: "user exam scores" },
  { name: "students_list", bit: 38, grants: [A], meaning: "class student roster (teachers)" },
  { name: "card_info", bit: 39, grants: [A, C], meaning: "read campus card info" },
  { name: "card_transactions", bit: 40, grants: [A], meaning: "read campus card transactions" },
  {
    name: "write_card_info",
    bit: 41,
    grants: [A],
    meaning: "card updates: change query password, report loss, top up from a bound bank card",
  },
  { name: "income", bit: 42, grants: [A, C], meaning: "query user income info" },
  { name: "create_account", bit: 43, grants: [C], meaning: "create a campus account" },
  { name: "edit_account", bit: 44, grants: [A], meaning: "modify a campus account" },
  { name: "net_service_info", bit: 45, grants: [A], meaning: "all network service info of a given user" },
  {
    name: "connect_msgapp",
    bit: 46,
    grants: [A],
    meaning: "bind a messaging-app account to the campus account",
  },
  {
    name: "connect_municipal_edu",
    bit: 47,
    grants: [A],
    meaning: "bind a municipal education commission account",
  },
  { name: "print", bit: 48, grants: [A, C], meaning: "self-service printing" },
  { name: "connect_finance", bit: 49, grants: [C], meaning: "finance reservation system integration" },
  { name: "student_affairs", bit: 50, grants: [C], meaning: "student affairs information" },
  {
    name: "bus",
    bit: 51,
    grants: [C],
    meaning: "campus bus and inter-campus shuttle timetables and live info",
  },
  { name: "calendar", bit: 52, grants: [A, C], meaning: "schedule synchronisation" },
];

/** Spec 001's user scopes (authorization code and implicit grants give user tokens). */
const WORKFLOW_USER_SCOPES: readonly [string, string][] = [
  ["profile_edit", "change the user's preferences"],
  ["triple", "read the user's positions"],
  ["access", "read the user's access grants"],
  ["access_edit", "grant and revoke access by position"],
  ["app", "list the workflow apps the user may use"],
  ["app_edit", "change workflow apps"],
  ["task", "read the user's tasks"],
  ["task_edit", "withdraw tasks and change their handlers"],
  ["process", "read the processes the user took part in"],
  ["process_edit", "change processes the user took part in"],
  ["start", "start processes for the user"],
  ["submit", "handle the user's tasks"],
  ["stats", "read workflow statistics"],
  ["entrust", "read delegations"],
  ["entrust_edit", "delegate work to others"],
  ["code", "read the tenant's code tables, and change them as a tenant administrator"],
];

/** Spec 001's sys scopes (client credentials give sys tokens). */
const WORKFLOW_SYS_SCOPES: readonly [string, string][] = [
  ["sys_profile", "read any user's profile"],
  ["sys_profile_edit", "change any user's preferences"],
  ["sys_triple", "read users, departments, posts and positions"],
  ["sys_triple_edit", "change users, departments, posts and positions"],
  ["sys_access", "read access grants"],
  ["sys_app", "read workflow app administration data"],
  ["sys_app_edit", "change workflow apps and publish versions"],
  ["sys_task", "read tasks of any user"],
  ["sys_task_edit", "change task handlers and send reminders"],
  ["sys_process", "read processes of any user"],
  ["sys_process_edit", "act on processes as an administrator"],
  ["sys_start", "start processes for any user"],
  ["sys_submit", "handle tasks for any user"],
  ["sys_stats", "read workflow statistics of the tenant"],
  ["sys_entrust", "read delegations of any user"],
  ["sys_entrust_edit", "delegate work for any user"],
  ["sys_enterprise", "read tenant memberships, tags and settings"],
  ["sys_code", "manage the tenant's code tables"],
  ["sys_thing", "read items and pickup codes"],
  ["sys_thing_edit", "create pickup codes"],
  ["sys_message_edit", "publish push messages"],
];

export const SCOPES: readonly ScopeDefinition[] = [
  ...OPEN_API_SCOPES,
  ...WORKFLOW_USER_SCOPES.map(([name, meaning]) => ({ name, grants: [A, I], meaning })),
  ...WORKFLOW_SYS_SCOPES.map(([name, meaning]) => ({ name, grants: [C], meaning })),
];

const BY_NAME = new Map(SCOPES.map((scope) => [scope.name, scope]));
const BY_BIT = new Map(SCOPES.filter((s) => s.bit !== undefined).map((scope) => [scope.bit!, scope]));

export function scopeNamed(name: string): ScopeDefinition | undefined {
  return BY_NAME.get(name);
}

/** The grants a scope list may be issued under; a token's kind follows from its grant. */
export function tokenKindOf(grant: Grant): TokenKind {
  return grant === Grant.ClientCredentials ? "sys" : "user";
}

export type ScopeParseResult = { ok: true; names: string[] } | { ok: false; error: string };

/**
 * Reads a `scope` parameter: names separated by spaces, or the numeric sum of scope bits. Unknown
 * names and unassigned bits are errors.
 */
export function parseScopeParameter(value: string): ScopeParseResult {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    let rest = BigInt(trimmed);
    const names: string[] = [];
    for (let bit = 0; rest > 0n; bit++, rest >>= 1n) {
      if ((rest & 1n) === 0n) continue;
      const scope = BY_BIT.get(bit);
      if (!scope) return { ok: false, error: `bit ${bit} of scope ${trimmed} is not an assigned scope` };
      names.push(scope.name);
    }
    return { ok: true, names };
  }
  const names = [...new Set(trimmed.split(/\s+/).filter(Boolean))];
  const unknown = names.filter((name) => !BY_NAME.has(name));
  if (unknown.length > 0) return { ok: false, error: `unknown scope ${unknown.join(", ")}` };
  return { ok: true, names };
}
