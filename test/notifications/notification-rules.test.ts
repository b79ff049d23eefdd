import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { channelRuleViolations, notificationBodySchema } from "../../contracts/notification.ts";

const EXTERNAL = new Set(["campus_wall"]);

/** Every problem with a body, shape first then channel rules, as `field: message`. */
function problems(body: unknown): string[] {
  const parsed = notificationBodySchema.safeParse(body);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  return channelRuleViolations(parsed.data, EXTERNAL).map((v) => `${v.field}: ${v.message}`);
}

const hundred = (make: (i: number) => string, n = 100) => Array.from({ length: n }, (_, i) => make(i));
const template = JSON.stringify({
  template_id: "T-1",
  data: { first: { value: "Hello" }, amount: { value: 12 } },
});

describe("notification rules of spec 000", () => {
  it("accepts a valid notification for each channel", () => {
    const valid: unknown[] = [
      { channels: ["email"], name: "Exam", emails: ["a@example.edu"], html: "<b>hi</b>" },
      { channels: ["sms"], phones: ["13800000000"], abstract: "short", content: "longer" },
      { channels: ["app"], accounts: ["alice"], name: "Title", content: "x".repeat(1000) },
      {
        channels: ["app"],
        accounts: ["alice"],
        app: { abstract: "fee due", content: [{ name: "Due", value: "May 1" }] },
      },
      {
        channels: ["app"],
        accounts: ["alice"],
        name: "Campus news",
        app: { displayStyle: "news", pictureUrl: "https://x/p.png", urls: [{ url: "https://x" }] },
      },
      { channels: ["app_sms"], accounts: ["alice", ""], phones: ["138", "139"], content: "c" },
      { channels: ["msgapp_template"], users: [{ account: "alice" }], content: template },
      { channels: ["campus_wall"], users: [{ account: "alice" }], content: "posted" },
      {
        channels: ["email", "sms"],
        name: "Both",
        emails: hundred((i) => `u${i}@x.edu`),
        phones: hundred(String),
        content: "c",
      },
    ];
    for (const body of valid) assert.deepEqual(problems(body), [], JSON.stringify(body));
  });

  const rejected: [string, unknown, RegExp][] = [
    ["no channel", { channels: [] }, /^channels: at least one channel is required$/],
    [
      "unknown channel",
      { channels: ["pigeon"], users: [{ account: "a" }] },
      /^channels: has unknown channel pigeon$/,
    ],
    [
      "name over 500",
      { channels: ["email"], name: "n".repeat(501), emails: ["a@x"], content: "c" },
      /^name: at most 500/,
    ],
    [
      "101 emails",
      { channels: ["email"], name: "n", emails: hundred((i) => `${i}@x`, 101), content: "c" },
      /^emails: at most 100 emails/,
    ],
    [
      "101 phones",
      { channels: ["sms"], phones: hundred(String, 101), content: "c" },
      /^phones: at most 100 phones/,
    ],
    [
      "101 accounts",
      { channels: ["app"], name: "n", accounts: hundred(String, 101) },
      /^accounts: at most 100 accounts/,
    ],
    [
      "101 users",
      { channels: ["campus_wall"], users: Array.from({ length: 101 }, (_, i) => ({ account: `u${i}` })) },
      /^users: at most 100 users/,
    ],
    ["id not a guid", { id: "42", channels: ["sms"], phones: ["1"], content: "c" }, /^id: must be a GUID$/],
    [
      "email without name",
      { channels: ["email"], emails: ["a@x"], content: "c" },
      /^name: is required for channel email$/,
    ],
    [
      "email without recipients",
      { channels: ["email"], name: "n", content: "c" },
      /^emails: are required for channel email$/,
    ],
    [
      "email without body",
      { channels: ["email"], name: "n", emails: ["a@x"] },
      /^content: or html is required for channel email$/,
    ],
    ["sms without phones", { channels: ["sms"], content: "c" }, /^phones: are required for channel sms$/],
    [
      "sms without text",
      { channels: ["sms"], phones: ["1"] },
      /^abstract: or content is required for channel sms$/,
    ],
    [
      "sms abstract too long (abstract wins)",
      { channels: ["sms"], phones: ["1"], abstract: "a".repeat(2049), content: "c" },
      /^abstract: must be at most 2048/,
    ],
    [
      "sms content too long",
      { channels: ["sms"], phones: ["1"], content: "a".repeat(2049) },
      /^content: must be at most 2048/,
    ],
    ["app without accounts", { channels: ["app"], name: "n" }, /^accounts: are required for channel app$/],
    [
      "app with nothing to show",
      { channels: ["app"], accounts: ["a"], content: "c" },
      /^name: or app.title or app.abstract must not be empty/,
    ],
    [
      "app name becomes abstract: under 100",
      { channels: ["app"], accounts: ["a"], name: "n".repeat(100) },
      /^name: must be under 100 characters/,
    ],
    [
      "app outer content over 1000",
      { channels: ["app"], accounts: ["a"], name: "n", content: "c".repeat(1001) },
      /^content: must be at most 1000 characters/,
    ],
    [
      "app outer abstract serves as content",
      { channels: ["app"], accounts: ["a"], name: "n", abstract: "c".repeat(1001) },
      /^abstract: must be at most 1000 characters/,
    ],
    [
      "app.title 100 chars",
      { channels: ["app"], accounts: ["a"], app: { title: "t".repeat(100), abstract: "a" } },
      /^app.title: must be under 100 characters$/,
    ],
    [
      "app.abstract required for basic",
      { channels: ["app"], accounts: ["a"], app: { title: "t" } },
      /^app.abstract: is required for the basic style$/,
    ],
    [
      "app.abstract required for fee",
      { channels: ["app"], accounts: ["a"], app: { displayStyle: "fee", title: "t" } },
      /^app.abstract: is required for the fee style$/,
    ],
    [
      "news without picture",
      { channels: ["app"], accounts: ["a"], name: "n", app: { displayStyle: "news" } },
      /^app.pictureUrl: is required for the news style$/,
    ],
    [
      "news with title",
      { channels: ["app"], accounts: ["a"], app: { displayStyle: "news", pictureUrl: "p", title: "t" } },
      /^app.title: is not supported for the news style$/,
    ],
    [
      "picture outside news",
      { channels: ["app"], accounts: ["a"], app: { abstract: "a", pictureUrl: "p" } },
      /^app.pictureUrl: is supported only for the news style$/,
    ],
    [
      "6 content entries",
      {
        channels: ["app"],
        accounts: ["a"],
        app: { abstract: "a", content: hundred(() => ({ name: "n", value: "v" }) as never, 6) },
      },
      /^app.content: at most 5 entries$/,
    ],
    [
      "content entry without value",
      { channels: ["app"], accounts: ["a"], app: { abstract: "a", content: [{ name: "n", value: "" }] } },
      /^app.content.0.value: value is required$/,
    ],
    [
      "serialized content over 1000",
      {
        channels: ["app"],
        accounts: ["a"],
        app: { abstract: "a", content: [{ name: "n", value: "v".repeat(990) }] },
      },
      /^app.content: serialized must be at most 1000/,
    ],
    [
      "url over 1024",
      { channels: ["app"], accounts: ["a"], app: { abstract: "a", urls: [{ url: "u".repeat(1025) }] } },
      /^app.urls.0.url: /,
    ],
    [
      "urlName over 20",
      {
        channels: ["app"],
        accounts: ["a"],
        app: { abstract: "a", urls: [{ url: "u", urlName: "n".repeat(21) }] },
      },
      /^app.urls.0.urlName: /,
    ],
    [
      "unknown urlType",
      { channels: ["app"], accounts: ["a"], app: { abstract: "a", urls: [{ url: "u", urlType: "ftp" }] } },
      /^app.urls.0.urlType: /,
    ],
    [
      "unknown display style",
      { channels: ["app"], accounts: ["a"], app: { displayStyle: "fancy", abstract: "a" } },
      /^app.displayStyle: /,
    ],
    [
      "app_sms without phones",
      { channels: ["app_sms"], accounts: ["a"], content: "c" },
      /^phones: are required for channel app_sms$/,
    ],
    [
      "app_sms counts differ",
      { channels: ["app_sms"], accounts: ["a", "b"], phones: ["1"], content: "c" },
      /^phones: must match accounts one to one for channel app_sms \(1 phones, 2 accounts\)$/,
    ],
    [
      "app_sms content over 2048",
      {
        channels: ["app_sms"],
        accounts: ["a"],
        phones: ["1"],
        app: { abstract: "a" },
        content: "c".repeat(2049),
      },
      /^content: must be at most 2048/,
    ],
    [
      "template without users",
      { channels: ["msgapp_template"], content: template },
      /^users: are required for channel msgapp_template$/,
    ],
    [
      "template user without account",
      { channels: ["msgapp_template"], users: [{ name: "x" }], content: template },
      /^users: each need an account/,
    ],
    [
      "template content not JSON",
      { channels: ["msgapp_template"], users: [{ account: "a" }], content: "{nope" },
      /^content: must be a JSON string/,
    ],
    [
      "template without id",
      { channels: ["msgapp_template"], users: [{ account: "a" }], content: JSON.stringify({ data: {} }) },
      /^content: template_id: /,
    ],
    [
      "template data not {value}",
      {
        channels: ["msgapp_template"],
        users: [{ account: "a" }],
        content: JSON.stringify({ template_id: "t", data: { x: "plain" } }),
      },
      /^content: data.x: /,
    ],
    [
      "external without users",
      { channels: ["campus_wall"], content: "c" },
      /^users: are required for channel campus_wall$/,
    ],
    [
      "unknown field",
      { channels: ["sms"], phones: ["1"], content: "c", priority: "high" },
      /Unrecognized key/,
    ],
  ];

  for (const [rule, body, expected] of rejected) {
    it(`rejects: ${rule}`, () => {
      const found = problems(body);
      assert.ok(
        found.some((p) => expected.test(p)),
        `expected ${expected}, got ${JSON.stringify(found)}`,
      );
    });
  }
});
