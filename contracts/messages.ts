/**
 * Error texts of spec 001's surface in each language it answers in, chosen by `Accept-Language`.
 * `{name}` is replaced by the parameter of that name.
 */
export const MESSAGES = {
  invalidParameter: { en: "{field}: {detail}", zh: "参数 {field} 无效：{detail}" },
  missingScope: { en: "the token lacks the scope {scopes}", zh: "令牌缺少权限范围 {scopes}" },
  needsUserToken: { en: "this operation needs a user token", zh: "此操作需要用户令牌" },
  needsSysToken: { en: "this operation needs a sys token", zh: "此操作需要系统令牌" },
  tokenMissing: {
    en: "no access token: give one as access_token or in Authorization: Bearer",
    zh: "缺少访问令牌：请通过 access_token 参数或 Authorization: Bearer 提供",
  },
  tokenMalformed: { en: "the token is not a well-formed access token", zh: "令牌不是格式正确的访问令牌" },
  tokenBadSignature: {
    en: "the token's signature does not verify with this platform's keys",
    zh: "令牌的签名无法用本平台的密钥验证",
  },
  tokenExpired: { en: "the token has expired", zh: "令牌已过期" },
  tokenRevoked: { en: "the token has been revoked", zh: "令牌已被撤销" },
  tokenApplicationDisabled: { en: "the application is disabled", zh: "该应用已被停用" },
  tokenAccountDisabled: { en: "the account is disabled", zh: "该账号已被停用" },
  taskLinkRefused: {
    en: "the task link has expired or does not open this operation",
    zh: "任务链接已过期或不能用于此操作",
  },
  passwordGrantRefused: {
    en: "the workflow API does not take tokens of the password grant",
    zh: "工作流接口不接受密码模式获取的令牌",
  },
  noRoute: { en: "no route for {method} {path}", zh: "没有 {method} {path} 这个接口" },
  internal: { en: "internal error", zh: "内部错误" },
  tenantNeeded: {
    en: "name the tenant: give code@domain or the domain parameter",
    zh: "请指明租户：使用 code@domain 或 domain 参数",
  },
  noTenant: { en: "no tenant {domain}", zh: "租户 {domain} 不存在" },
  otherTenant: {
    en: "the application belongs to another tenant than {domain}",
    zh: "该应用不属于租户 {domain}",
  },
  noEntity: { en: "no {type} {code}", zh: "{type} {code} 不存在" },
  entityExists: { en: "{type} {code} exists already", zh: "{type} {code} 已存在" },
  notModifiable: { en: "{field} cannot be changed on a {type}", zh: "{type} 的 {field} 不可修改" },
  invalidPosition: {
    en: "{position} is not a position: write {dept}:{post}, either may be *",
    zh: "{position} 不是有效的职位：格式为 {dept}:{post}，两者均可为 *",
  },
  concretePosition: {
    en: "add users to one department and post, not {position}",
    zh: "只能向具体的部门和岗位添加用户，而不是 {position}",
  },
  reservedPreference: {
    en: "{key} is a profile field, not a preference",
    zh: "{key} 是个人资料字段，不能作为偏好设置",
  },
  integerPreference: { en: "{key} holds integers, not {value}", zh: "{key} 只能包含整数，而不是 {value}" },
  preferenceFull: {
    en: "{key} holds at most {max} values",
    zh: "{key} 最多包含 {max} 个值",
  },
  tooManyPreferences: { en: "at most {max} preference keys", zh: "偏好设置最多 {max} 项" },
  invalidJson: { en: "{field} must be a JSON object", zh: "{field} 必须是 JSON 对象" },
} as const satisfies Record<string, Record<Language, string>>;

/** Words messages name things with, themselves translated when a message is. */
export const TERMS = {
  user: { en: "user", zh: "用户" },
  dept: { en: "department", zh: "部门" },
  post: { en: "post", zh: "岗位" },
} as const satisfies Record<string, Record<Language, string>>;

export type Language = "en" | "zh";
export type MessageKey = keyof typeof MESSAGES;
export type Term = { term: keyof typeof TERMS };
export type MessageParams = Record<string, string | number | Term>;

export function renderMessage(key: MessageKey, params: MessageParams, language: Language): string {
  return MESSAGES[key][language].replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === "object" ? TERMS[value.term][language] : String(value);
  });
}

/**
 * The language of an `Accept-Language` header among those the messages exist in: the supported
 * one with the highest weight, English when none is.
 */
export function preferredLanguage(header: string | undefined): Language {
  if (!header) return "en";
  let best: Language = "en";
  let bestWeight = 0;
  for (const part of header.split(",", 20)) {
    const [tag = "", ...rest] = part.trim().split(";");
    const q = rest.find((p) => p.trim().startsWith("q="));
    const weight = q ? Number(q.trim().slice(2)) : 1;
    const primary = tag.trim().toLowerCase().split("-")[0];
    if ((primary === "zh" || primary === "en") && weight > bestWeight) {
      best = primary;
      bestWeight = weight;
    }
  }
  return best;
}
