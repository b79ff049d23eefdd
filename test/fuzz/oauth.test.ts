import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { nastyString, percentEncode, urlValue } from "./support/arbitraries.ts";
import { checkResponse } from "./support/envelopes.ts";
import { PORTAL_REDIRECT, SECRET, startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, send } from "./support/http-client.ts";
import { forgedTokens } from "./support/request-parts.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();

after(async () => {
  await tally.report();
  await platform.stop();
});

const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** Client credentials as a client may get them wrong: in the header or the form, real or not, well encoded or not. */
const credentials = fc.oneof(
  fc
    .record({
      id: fc.oneof(fc.constantFrom("fuzz-app", "fuzz-portal", "fuzz-global"), nastyString),
      secret: fc.oneof(fc.constant(SECRET), nastyString),
    })
    .map(({ id, secret }) => ({
      id,
      secret,
      headers: {
        authorization: `Basic ${Buffer.from(`${percentEncode(id)}:${percentEncode(secret)}`).toString("base64")}`,
      },
      form: "",
    })),
  fc
    .record({ id: fc.constantFrom("fuzz-app", "x"), secret: fc.oneof(fc.constant(SECRET), nastyString) })
    .map(({ id, secret }) => ({
      id,
      secret,
      headers: {},
      form: `client_id=${percentEncode(id)}&client_secret=${percentEncode(secret)}`,
    })),
  fc
    .constantFrom(
      "Basic",
      "Basic ",
      "Basic !!!!",
      `Basic ${Buffer.from("no-colon").toString("base64")}`,
      `Basic ${Buffer.from("fuzz-app\u0000:x").toString("base64")}`,
      `Basic ${Buffer.from("%E0%A4%A:%").toString("base64")}`,
      `Basic ${Buffer.from(`fuzz-app:${SECRET}`).toString("base64")}=====`,
      `basic ${Buffer.from(`:${SECRET}`).toString("base64")}`,
      `Bearer ${Buffer.from(`fuzz-app:${SECRET}`).toString("base64")}`,
    )
    .map((authorization) => ({ ...basicCredentials(authorization), headers: { authorization }, form: "" })),
);

/** What a Basic header carries, read as leniently as base64 allows: a padded header still names the client. */
function basicCredentials(authorization: string): { id: string; secret: string } {
  const [scheme, value = ""] = authorization.split(" ", 2);
  if (scheme?.toLowerCase() !== "basic") return { id: "", secret: "" };
  const decoded = Buffer.from(value, "base64").toString();
  const colon = decoded.indexOf(":");
  return colon < 0
    ? { id: "", secret: "" }
    : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

const realClient = {
  id: "fuzz-app",
  secret: SECRET,
  headers: { authorization: `Basic ${Buffer.from(`fuzz-app:${SECRET}`).toString("base64")}` },
  form: "",
};

const scope = fc.oneof(
  fc.constantFrom(
    "",
    "signature",
    "131073",
    "18446744073709551616",
    "1e309",
    "-1",
    "0",
    "9".repeat(4000),
    "signature signature",
    "sys_triple\u0000",
    "SIGNATURE",
    "introspect send_notification",
  ),
  nastyString,
);

const grantFields = fc.record(
  {
    grant_type: fc.oneof(
      fc.constantFrom(
        "client_credentials",
        "password",
        "refresh_token",
        "authorization_code",
        "implicit",
        "CLIENT_CREDENTIALS",
        "",
      ),
      nastyString,
    ),
    scope,
    username: fc.oneof(fc.constantFrom("fuzzer", "sms_fuzzer", "fuzzer@fuzz.edu"), nastyString),
    password: fc.oneof(fc.constant("fuzzing password 1"), nastyString),
    refresh_token: nastyString,
    code: nastyString,
    redirect_uri: fc.oneof(fc.constant(PORTAL_REDIRECT), nastyString),
    code_verifier: nastyString,
  },
  { requiredKeys: [] },
);

describe("OAuth2 endpoints", () => {
  it("issues a token only to a client that proves itself, and answers RFC 6749 errors otherwise", async () => {
    let issued = 0;
    await fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "oauth2 token",
      runs: 300,
      arbitrary: fc
        .record({
          // A well-formed request of a real client now and then, so the property reaches issuing.
          credentials: fc.oneof(
            { weight: 1, arbitrary: fc.constant(realClient) },
            { weight: 3, arbitrary: credentials },
          ),
          fields: fc.oneof(
            {
              weight: 1,
              arbitrary: scope.map((asked) => ({ grant_type: "client_credentials", scope: asked })),
            },
            { weight: 3, arbitrary: grantFields },
          ),
          repeat: fc.boolean(),
        })
        .map(({ credentials, fields, repeat }) => {
          const form = Object.entries(fields).map(([name, value]) => `${name}=${percentEncode(value)}`);
          if (repeat) form.push(...form);
          return compact({
            credentials,
            request: {
              method: "POST",
              path: "/oauth2/token",
              headers: { ...FORM, ...credentials.headers },
              body: [credentials.form, ...form].filter(Boolean).join("&"),
            },
          });
        }),
      check: async ({ credentials, request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        if (answer.status !== 200) return;
        assert.equal(credentials.secret, SECRET, "a token for a client that gave a wrong secret");
        const body = JSON.parse(answer.body.toString()) as { access_token: string; token_type: string };
        assert.equal(body.token_type, "bearer");
        assert.match(body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
        issued++;
      },
    });
    assert.ok(issued > 0, "no token was issued: the property never got past client authentication");
  });

  it("introspects and revokes whatever is sent as a token without failing", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "oauth2 introspect and revoke",
      runs: 100,
      arbitrary: fc
        .record({
          path: fc.constantFrom("/oauth2/introspect", "/oauth2/revoke"),
          token: fc.oneof(
            nastyString,
            fc.constantFrom(...forgedTokens(platform.tokens.sys), platform.tokens.user),
          ),
          hint: fc.option(fc.oneof(fc.constantFrom("refresh_token", "access_token"), nastyString), {
            nil: undefined,
          }),
          credentials,
        })
        .map(({ path, token, hint, credentials }) =>
          compact({
            request: {
              method: "POST",
              path,
              headers: { ...FORM, ...credentials.headers },
              body: [
                credentials.form,
                `token=${percentEncode(token)}`,
                hint === undefined ? "" : `token_type_hint=${percentEncode(hint)}`,
              ]
                .filter(Boolean)
                .join("&"),
            },
          }),
        ),
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        if (answer.status === 200 && request.path === "/oauth2/introspect") {
          const body = JSON.parse(answer.body.toString()) as { active: boolean };
          if (body.active)
            assert.ok(request.body?.includes(platform.tokens.user.slice(-20)), "a forged token is active");
        }
      },
    }));

  it("redirects only to the registered address, whatever the authorization request says", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "oauth2 authorize",
      runs: 160,
      arbitrary: fc
        .record(
          {
            response_type: fc.oneof(fc.constantFrom("code", "token", "code token", ""), nastyString),
            client_id: fc.oneof(fc.constantFrom("fuzz-portal", "fuzz-app"), nastyString),
            redirect_uri: fc.oneof(
              fc.constantFrom(
                PORTAL_REDIRECT,
                `${PORTAL_REDIRECT}/../evil`,
                `${PORTAL_REDIRECT}@evil.example`,
                `${PORTAL_REDIRECT}?next=https://evil.example`,
                "https://evil.example/",
                "javascript:alert(1)",
                PORTAL_REDIRECT.toUpperCase(),
              ),
              nastyString,
            ),
            scope,
            state: nastyString,
            code_challenge: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), nastyString),
            code_challenge_method: fc.constantFrom("S256", "plain", "s256", ""),
          },
          { requiredKeys: [] },
        )
        .map((query) =>
          compact({
            request: {
              method: "GET",
              path: `/oauth2/authorize?${Object.entries(query)
                .map(([name, value]) => `${name}=${percentEncode(value)}`)
                .join("&")
                .slice(0, 10_000)}`,
            },
          }),
        ),
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        if (answer.status === 302)
          assert.ok(
            String(answer.headers.location).startsWith(PORTAL_REDIRECT),
            `redirected to ${answer.headers.location}`,
          );
      },
    }));

  it("refuses sign-in and consent forms of pages it never showed", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "oauth2 authorize",
      runs: 60,
      arbitrary: fc
        .record({
          page: fc.constantFrom("login", "consent"),
          request: urlValue,
          cookie: fc.option(
            urlValue.map((value) => `op_authz=${value.replace(/[^\x21-\x7e]/g, "")}`),
            { nil: undefined },
          ),
          username: fc.oneof(fc.constant("fuzzer"), urlValue),
          password: urlValue,
          decision: fc.constantFrom("allow", "deny", ""),
        })
        .map(({ page, request, cookie, username, password, decision }) =>
          compact({
            request: {
              method: "POST",
              path: `/oauth2/authorize/${page}`,
              headers: { ...FORM, ...(cookie === undefined ? {} : { cookie }) },
              body: `request=${request}&username=${username}&password=${password}&decision=${decision}`,
            },
          }),
        ),
      check: async ({ request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        assert.notEqual(answer.status, 302, "a page that was never shown led somewhere");
      },
    }));
});
