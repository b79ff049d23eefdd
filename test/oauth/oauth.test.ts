import assert from "node:assert/strict";
import crypto, { createHash, randomBytes, randomUUID } from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import { mock } from "node:test";
import { Hono } from "hono";
import { generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import type postgres from "postgres";
import { asPlatformError, errorResponse } from "../../gateway/error-envelope.ts";
import type { GatewayEnv } from "../../gateway/gateway-env.ts";
import { requireToken } from "../../gateway/middleware/require-token.ts";
import { surface } from "../../gateway/middleware/surface.ts";
import { createOAuthServices } from "../../gateway/oauth/oauth-services.ts";
import { AuthorizationPages } from "../support/authorization-pages.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

const SIGN_SECRET = "sign-app-secret-0123456789abcdefghijklmnop";
const WEB_SECRET = "web-app-secret-0123456789abcdefghijklmnopq";
const LOCK_SECRET = "lock-app-secret-0123456789abcdefghijklmnop";
const ADMIN_TOKEN = "admin-token-0123456789abcdefghijklmnopqrstuv";
const ALICE_PASSWORD = "correct horse battery staple";
const REDIRECT = "https://app.example.edu/callback";
const SPA_REDIRECT = "https://spa.example.edu/";

const bootstrap = {
  tenants: [{ domain: "example.edu", name: "Example University" }],
  applications: [
    {
      id: "sign-app",
      secret: SIGN_SECRET,
      name: "Seal service client",
      scopes: [
        "basic",
        "profile",
        "signature",
        "introspect",
        "notifications",
        "modify_notification",
        "send_app_notification",
        "send_notification",
        "sys_profile",
        // named twice: granted once
        "profile",
      ],
    },
    {
      id: "web-app",
      secret: WEB_SECRET,
      name: "Course portal",
      type: "enterprise",
      tenant: "example.edu",
      redirectUris: [REDIRECT],
      scopes: ["basic", "profile", "send_mail", "signature"],
    },
    {
      id: "spa-app",
      name: "Campus single-page app",
      redirectUris: [SPA_REDIRECT],
      scopes: ["profile"],
      implicitAllowed: true,
    },
    { id: "lock-app", secret: LOCK_SECRET, name: "Lockout client", scopes: ["send_notification"] },
  ],
  users: [
    {
      tenant: "example.edu",
      account: "alice",
      name: "Alice Liddell",
      email: "alice@example.edu",
      password: ALICE_PASSWORD,
    },
    { tenant: "example.edu", account: "carol", name: "Carol", password: "carol's own password" },
    { tenant: "example.edu", account: "dave", name: "Dave", password: "dave's own password" },
  ],
};

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
}

interface TokenReply {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A token signed with the platform's own key that expired a minute ago. */
async function expiredToken(sql: postgres.Sql, issuer: string): Promise<string> {
  const [key] = await sql<
    { private_jwk: JWK }[]
  >`select private_jwk from signing_keys where retired_at is null`;
  const privateKey = await importJWK(key!.private_jwk, "EdDSA");
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    client_id: "web-app",
    scope: "profile signature",
    gty: "client_credentials",
    kind: "sys",
  })
    .setProtectedHeader({ alg: "EdDSA", kid: key!.private_jwk.kid!, typ: "at+jwt" })
    .setIssuer(issuer)
    .setSubject("web-app")
    .setIssuedAt(now - 3700)
    .setExpirationTime(now - 60)
    .sign(privateKey);
}

/** A token of the right form whose signature no key of the platform made. */
async function tokenOfAnotherKey(issuer: string): Promise<string> {
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  return new SignJWT({ client_id: "web-app", scope: "profile", gty: "authorization_code", kind: "user" })
    .setProtectedHeader({ alg: "EdDSA", kid: randomUUID(), typ: "at+jwt" })
    .setIssuer(issuer)
    .setSubject(randomUUID())
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(privateKey);
}

/** The token with its signature's first character changed. */
function tampered(token: string): string {
  const [header, payload, signature] = token.split(".") as [string, string, string];
  return `${header}.${payload}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
}

/** RFC 6750's challenge for a refused token, with the reason. */
function invalidToken(description: string): string {
  return `Bearer error="invalid_token", error_description="${description}"`;
}

function pkcePair() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

for (const mode of await testModes()) {
  describe(`OAuth2 authorization server (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;

    async function token(form: Record<string, string>, authorization?: string): Promise<TokenReply> {
      const response = await fetch(`${platform.url}/oauth2/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(authorization ? { authorization } : {}),
        },
        body: new URLSearchParams(form),
      });
      return {
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
        headers: response.headers,
      };
    }

    async function introspect(tokenValue: string): Promise<Record<string, unknown>> {
      const response = await fetch(`${platform.url}/oauth2/introspect`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: basic("sign-app", SIGN_SECRET),
        },
        body: new URLSearchParams({ token: tokenValue }),
      });
      assert.equal(response.status, 200);
      return (await response.json()) as Record<string, unknown>;
    }

    async function revoke(tokenValue: string, authorization: string): Promise<void> {
      const response = await fetch(`${platform.url}/oauth2/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization },
        body: new URLSearchParams({ token: tokenValue }),
      });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    }

    async function scopesOf(tokenValue: string): Promise<string[]> {
      return String((await introspect(tokenValue)).scope)
        .split(" ")
        .sort();
    }

    /** What `/apis/v2/me/profile` answers a user token with `profile`: 200, or 401 once it is refused. */
    async function profileStatus(accessToken: string): Promise<number> {
      const response = await fetch(`${platform.url}/apis/v2/me/profile`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      await response.arrayBuffer();
      return response.status;
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      platform = await startTestPlatform({
        ...(await withBootstrap(prepared.env, bootstrap)),

        ADMIN_TOKEN,
        LOGIN_MAX_FAILURES: "3",
      });
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    describe("token endpoint", () => {
      it("issues a client_credentials token with the spec's fields, the scope granted, and no-store headers", async () => {
        const reply = await token(
          { grant_type: "client_credentials", scope: "signature" },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(reply.status, 200);
        assert.deepEqual(Object.keys(reply.body).sort(), [
          "access_token",
          "expires_in",
          "scope",
          "token_type",
        ]);
        assert.equal(reply.body.scope, "signature");
        assert.equal(reply.body.token_type, "bearer");
        assert.equal(reply.body.expires_in, 3600);
        assert.equal(reply.headers.get("cache-control"), "no-store");
        assert.equal(reply.headers.get("pragma"), "no-cache");
        assert.deepEqual(await scopesOf(String(reply.body.access_token)), ["signature"]);
      });

      it("takes client credentials from the form, and from the header when both are given", async () => {
        const form = await token({
          grant_type: "client_credentials",
          scope: "signature",
          client_id: "sign-app",
          client_secret: SIGN_SECRET,
        });
        assert.equal(form.status, 200);
        const headerWins = await token(
          {
            grant_type: "client_credentials",
            scope: "signature",
            client_id: "sign-app",
            client_secret: "wrong",
          },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(headerWins.status, 200);
        const headerWrong = await token(
          {
            grant_type: "client_credentials",
            scope: "signature",
            client_id: "sign-app",
            client_secret: SIGN_SECRET,
          },
          basic("sign-app", "wrong"),
        );
        assert.equal(headerWrong.status, 401);
        assert.equal(headerWrong.body.error, "invalid_client");
        assert.match(headerWrong.headers.get("www-authenticate") ?? "", /^Basic/);
        const formWrong = await token({
          grant_type: "client_credentials",
          client_id: "sign-app",
          client_secret: "wrong",
        });
        assert.equal(formWrong.status, 401);
        assert.equal(formWrong.headers.get("www-authenticate"), null);
      });

      it("grants every client-credentials scope the application owns when scope is omitted", async () => {
        const reply = await token({ grant_type: "client_credentials" }, basic("sign-app", SIGN_SECRET));
        assert.equal(reply.status, 200);
        assert.deepEqual(
          String(reply.body.scope).split(" ").sort(),
          await scopesOf(String(reply.body.access_token)),
        );
        assert.deepEqual(await scopesOf(String(reply.body.access_token)), [
          "basic",
          "introspect",
          "modify_notification",
          "notifications",
          "profile",
          "send_app_notification",
          "signature",
          "sys_profile",
        ]);
      });

      it("reads scope as names or as the numeric sum of their bits", async () => {
        const byBits = await token(
          { grant_type: "client_credentials", scope: String((1n << 17n) + 1n) },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(byBits.status, 200);
        assert.deepEqual(await scopesOf(String(byBits.body.access_token)), ["basic", "signature"]);
        const byNames = await token(
          { grant_type: "client_credentials", scope: "signature basic" },
          basic("sign-app", SIGN_SECRET),
        );
        assert.deepEqual(await scopesOf(String(byNames.body.access_token)), ["basic", "signature"]);
      });

      it("refuses scopes that are unknown, unassigned, unapproved, or not allowed for the grant", async () => {
        const cases: [Record<string, string>, string, RegExp][] = [
          [{ grant_type: "client_credentials", scope: "nonsense" }, SIGN_SECRET, /unknown scope nonsense/],
          [
            { grant_type: "client_credentials", scope: String(1 << 4) },
            SIGN_SECRET,
            /bit 4 .* not an assigned scope/,
          ],
          [{ grant_type: "client_credentials", scope: "bus" }, SIGN_SECRET, /bus is not approved/],
          [
            { grant_type: "client_credentials", scope: "send_notification" },
            SIGN_SECRET,
            /cannot be granted through client_credentials/,
          ],
          [
            { grant_type: "password", username: "alice", password: ALICE_PASSWORD, scope: "signature" },
            SIGN_SECRET,
            /signature cannot be granted through password/,
          ],
        ];
        for (const [form, secret, message] of cases) {
          const reply = await token(form, basic("sign-app", secret));
          assert.equal(reply.status, 400, JSON.stringify(form));
          assert.equal(reply.body.error, "invalid_scope");
          assert.match(String(reply.body.error_description), message);
        }
      });

      it("answers unsupported and missing grant types with the RFC 6749 errors", async () => {
        const unsupported = await token({ grant_type: "urn:custom" }, basic("sign-app", SIGN_SECRET));
        assert.equal(unsupported.status, 400);
        assert.equal(unsupported.body.error, "unsupported_grant_type");
        const missing = await token({}, basic("sign-app", SIGN_SECRET));
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error, "invalid_request");
      });

      it("issues user tokens for the password grant and refuses a wrong password", async () => {
        const reply = await token(
          { grant_type: "password", username: "alice", password: ALICE_PASSWORD, scope: "send_notification" },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(reply.status, 200);
        assert.deepEqual(Object.keys(reply.body).sort(), [
          "access_token",
          "expires_in",
          "refresh_token",
          "scope",
          "token_type",
        ]);
        assert.equal(reply.body.scope, "send_notification");
        const details = await introspect(String(reply.body.access_token));
        assert.equal(details.username, "alice");
        const wrong = await token(
          { grant_type: "password", username: "alice", password: "not it", scope: "send_notification" },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(wrong.status, 400);
        assert.equal(wrong.body.error, "invalid_grant");
      });

      it("locks an account out after repeated failures, even for the right password", async () => {
        const attempt = (password: string) =>
          token({ grant_type: "password", username: "carol", password }, basic("lock-app", LOCK_SECRET));
        for (let i = 0; i < 3; i++) assert.equal((await attempt("guess")).body.error, "invalid_grant");
        const locked = await attempt("carol's own password");
        assert.equal(locked.status, 400);
        assert.match(
          String(locked.body.error_description),
          /too many failed attempts for this account; try again in \d+ s/,
        );
      });

      it("checks a password against a hash for an account no tenant has, as for a wrong one", async () => {
        // The gateway runs in this process: every scrypt it runs is counted, with its cost.
        const scrypt = mock.method(crypto, "scrypt");
        syncBuiltinESMExports();
        try {
          const hashWork = async (username: string) => {
            scrypt.mock.resetCalls();
            const reply = await token(
              { grant_type: "password", username, password: "a wrong guess", scope: "send_notification" },
              basic("sign-app", SIGN_SECRET),
            );
            assert.equal(reply.body.error, "invalid_grant");
            assert.equal(reply.body.error_description, "wrong username or password");
            return scrypt.mock.calls.map((call) => call.arguments[3]);
          };
          const wrongPassword = await hashWork("dave");
          assert.equal(wrongPassword.length, 1);
          assert.deepEqual(await hashWork("nobody"), wrongPassword, "a bare account no tenant has");
          assert.deepEqual(await hashWork("nobody@nowhere.example"), wrongPassword, "a domain of no tenant");
          assert.deepEqual(
            await hashWork("nobody@example.edu"),
            wrongPassword,
            "an unknown account of a tenant",
          );
        } finally {
          scrypt.mock.restore();
          syncBuiltinESMExports();
        }
      });

      it("rotates refresh tokens and revokes the family when a rotated one comes back", async () => {
        const first = await token(
          { grant_type: "password", username: "alice", password: ALICE_PASSWORD, scope: "send_notification" },
          basic("sign-app", SIGN_SECRET),
        );
        const original = String(first.body.refresh_token);
        const second = await token(
          { grant_type: "refresh_token", refresh_token: original },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(second.status, 200);
        assert.notEqual(second.body.refresh_token, original);
        assert.equal(second.body.scope, "send_notification");
        assert.deepEqual(await scopesOf(String(second.body.access_token)), ["send_notification"]);
        const replay = await token(
          { grant_type: "refresh_token", refresh_token: original },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(replay.status, 400);
        assert.equal(replay.body.error, "invalid_grant");
        const descendant = await token(
          { grant_type: "refresh_token", refresh_token: String(second.body.refresh_token) },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(descendant.body.error, "invalid_grant", "the whole family is revoked");
        const otherClient = await token(
          { grant_type: "refresh_token", refresh_token: String(second.body.refresh_token) },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(otherClient.body.error, "invalid_grant");
      });

      it("revokes a refresh token (RFC 7009)", async () => {
        const issued = await token(
          { grant_type: "password", username: "alice", password: ALICE_PASSWORD, scope: "send_notification" },
          basic("sign-app", SIGN_SECRET),
        );
        const response = await fetch(`${platform.url}/oauth2/revoke`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            authorization: basic("sign-app", SIGN_SECRET),
          },
          body: new URLSearchParams({ token: String(issued.body.refresh_token) }),
        });
        assert.equal(response.status, 200);
        const refreshed = await token(
          { grant_type: "refresh_token", refresh_token: String(issued.body.refresh_token) },
          basic("sign-app", SIGN_SECRET),
        );
        assert.equal(refreshed.body.error, "invalid_grant");
      });

      it("introspects only for clients with the introspect scope", async () => {
        const issued = await token(
          { grant_type: "client_credentials", scope: "signature" },
          basic("sign-app", SIGN_SECRET),
        );
        const details = await introspect(String(issued.body.access_token));
        assert.equal(details.active, true);
        assert.equal(details.client_id, "sign-app");
        assert.deepEqual(await introspect("not-a-token"), { active: false });
        const refused = await fetch(`${platform.url}/oauth2/introspect`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            authorization: basic("web-app", WEB_SECRET),
          },
          body: new URLSearchParams({ token: String(issued.body.access_token) }),
        });
        assert.equal(refused.status, 400);
        assert.equal(((await refused.json()) as { error: string }).error, "unauthorized_client");
      });

      it("publishes RFC 8414 metadata and the signing keys", async () => {
        const metadata = (await (
          await fetch(`${platform.url}/.well-known/oauth-authorization-server`)
        ).json()) as Record<string, unknown>;
        assert.equal(metadata.issuer, `${platform.url}/`);
        assert.equal(metadata.token_endpoint, `${platform.url}/oauth2/token`);
        assert.deepEqual(metadata.code_challenge_methods_supported, ["S256"]);
        assert.ok((metadata.scopes_supported as string[]).includes("send_app_notification"));
        const jwks = (await (await fetch(`${platform.url}/oauth2/jwks`)).json()) as { keys: JWK[] };
        assert.equal(jwks.keys.length, 1);
        assert.equal(jwks.keys[0]!.crv, "Ed25519");
        assert.equal(jwks.keys[0]!.d, undefined, "no private part");
      });
    });

    describe("token checks on APIs", () => {
      it("serves a user token's profile and refuses a sys token on a user-only route", async () => {
        const user = await token(
          { grant_type: "password", username: "alice", password: ALICE_PASSWORD, scope: "profile" },
          basic("web-app", WEB_SECRET),
        );
        // profile is not a password-grant scope for spec 000; this token must be refused.
        assert.equal(user.body.error, "invalid_scope");
        const { access_token } = await authorizationCodeFlow("web-app", WEB_SECRET, "profile");
        const response = await fetch(`${platform.url}/apis/v2/me/profile?access_token=${access_token}`);
        assert.equal(response.status, 200);
        const body = (await response.json()) as {
          errno: number;
          entities: { account: string; enterprise: { domain: string } }[];
        };
        assert.equal(body.errno, 0);
        assert.equal(body.entities[0]!.account, "alice");
        assert.equal(body.entities[0]!.enterprise.domain, "example.edu");

        const sys = await token(
          { grant_type: "client_credentials", scope: "profile sys_profile" },
          basic("sign-app", SIGN_SECRET),
        );
        const forbidden = await fetch(`${platform.url}/apis/v2/me/profile`, {
          headers: { authorization: `Bearer ${sys.body.access_token}` },
        });
        assert.equal(forbidden.status, 403);
        assert.equal(
          ((await forbidden.json()) as { error: string }).error,
          "this operation needs a user token",
        );
      });

      it("checks the scope of a sys token on the sys form", async () => {
        const aliceId = (
          await platform.running.platform.db.sql`select id from users where account = 'alice'`
        )[0]!.id;
        const withScope = await token(
          { grant_type: "client_credentials", scope: "sys_profile" },
          basic("sign-app", SIGN_SECRET),
        );
        const ok = await fetch(`${platform.url}/apis/v2d/user/${aliceId}/profile`, {
          headers: { authorization: `Bearer ${withScope.body.access_token}` },
        });
        assert.equal(ok.status, 200);
        const without = await token(
          { grant_type: "client_credentials", scope: "signature" },
          basic("sign-app", SIGN_SECRET),
        );
        const refused = await fetch(
          `${platform.url}/apis/v2/user/${aliceId}/profile?access_token=${without.body.access_token}`,
        );
        assert.equal(refused.status, 403);
        const body = (await refused.json()) as { ecode: string; error: string };
        assert.equal(body.ecode, "PERMISSION_DENIED");
        assert.equal(body.error, "the token lacks the scope sys_profile");
      });

      it("gives spec 000's exact 401 body on an open-API route for an expired token", async () => {
        const sql = platform.running.platform.db.sql;
        const { accessTokens } = await createOAuthServices(platform.running.platform);
        const app = new Hono<GatewayEnv>();
        app.onError((error, c) => errorResponse(c, asPlatformError(error)));
        app.use(surface("open-api"));
        app.post(
          "/v1/signature/:code",
          requireToken(accessTokens, { scopes: ["signature"], kind: "sys" }),
          (c) => c.text("sealed"),
        );
        const expired = await expiredToken(sql, platform.running.platform.config.oauth.issuer);
        const response = await app.request(`/v1/signature/seal-1?access_token=${expired}`, {
          method: "POST",
        });
        assert.equal(response.status, 401);
        assert.deepEqual(await response.json(), { errno: 10007, error: "ACCESS_TOKEN_EXPIRED", total: 0 });
        // Spec 000's text whatever the reason, which the challenge gives.
        assert.equal(response.headers.get("www-authenticate"), invalidToken("the token has expired"));
        const malformed = await app.request("/v1/signature/seal-1?access_token=not-a-token", {
          method: "POST",
        });
        assert.deepEqual(await malformed.json(), { errno: 10007, error: "ACCESS_TOKEN_EXPIRED", total: 0 });
        assert.equal(
          malformed.headers.get("www-authenticate"),
          invalidToken("the token is not a well-formed access token"),
        );
        const valid = await token(
          { grant_type: "client_credentials", scope: "signature" },
          basic("sign-app", SIGN_SECRET),
        );
        const sealed = await app.request(`/v1/signature/seal-1?access_token=${valid.body.access_token}`, {
          method: "POST",
        });
        assert.equal(await sealed.text(), "sealed");
      });

      it("answers a missing or refused token with 401 saying why, the text in the caller's language", async () => {
        const refusal = async (accessToken: string | undefined, language = "en") => {
          const response = await fetch(`${platform.url}/apis/v2/me/profile`, {
            headers: {
              "accept-language": language,
              ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
            },
          });
          return {
            status: response.status,
            challenge: response.headers.get("www-authenticate"),
            body: await response.json(),
          };
        };
        const refused = (error: string, challenge: string) => ({
          status: 401,
          challenge,
          body: { errno: 10007, ecode: "UNAUTHENTICATED", error, total: 0, entities: [] },
        });
        const missing = "no access token: give one as access_token or in Authorization: Bearer";
        assert.deepEqual(await refusal(undefined), refused(missing, "Bearer"));

        const { issuer } = platform.running.platform.config.oauth;
        const valid = (await authorizationCodeFlow("web-app", WEB_SECRET, "profile")).access_token;
        const expired = await expiredToken(platform.running.platform.db.sql, issuer);
        const badSignature = "the token's signature does not verify with this platform's keys";
        const cases: [string, string, string][] = [
          ["malformed", "not-a-token", "the token is not a well-formed access token"],
          ["unsigned (alg none)", "eyJhbGciOiJub25lIn0.e30.", badSignature],
          ["tampered", tampered(valid), badSignature],
          ["signed by another key", await tokenOfAnotherKey(issuer), badSignature],
          ["expired", expired, "the token has expired"],
        ];
        for (const [name, accessToken, reason] of cases) {
          assert.deepEqual(await refusal(accessToken), refused(reason, invalidToken(reason)), name);
        }
        // The text follows Accept-Language; errno, ecode and the challenge stay.
        assert.deepEqual(
          await refusal(expired, "zh-CN,zh;q=0.9"),
          refused("令牌已过期", invalidToken("the token has expired")),
        );

        assert.equal((await refusal(valid)).status, 200);
        await revoke(valid, basic("web-app", WEB_SECRET));
        const revoked = "the token has been revoked";
        assert.deepEqual(await refusal(valid), refused(revoked, invalidToken(revoked)));
      });

      it("keeps spec 000's ACCESS_TOKEN_EXPIRED on the notification API, the reason in the challenge", async () => {
        const expired = await expiredToken(
          platform.running.platform.db.sql,
          platform.running.platform.config.oauth.issuer,
        );
        const cases: [string | undefined, string][] = [
          [undefined, "Bearer"],
          [expired, invalidToken("the token has expired")],
          ["not-a-token", invalidToken("the token is not a well-formed access token")],
        ];
        for (const [accessToken, challenge] of cases) {
          const response = await fetch(`${platform.url}/notification/status`, {
            headers: accessToken ? { authorization: `Bearer ${accessToken}` } : {},
          });
          assert.equal(response.status, 401);
          assert.equal(response.headers.get("www-authenticate"), challenge);
          assert.deepEqual(await response.json(), { errno: 10007, error: "ACCESS_TOKEN_EXPIRED", total: 0 });
        }
      });
    });

    /** Drives the login and consent forms with plain HTTP, as a browser would. */
    async function authorizationCodeFlow(clientId: string, secret: string | undefined, scope: string) {
      const { verifier, challenge } = pkcePair();
      const state = randomBytes(8).toString("hex");
      const redirect = clientId === "spa-app" ? SPA_REDIRECT : REDIRECT;
      const pages = await AuthorizationPages.open(platform.url, {
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirect,
        scope,
        state,
        code_challenge: challenge,
        code_challenge_method: "S256",
      });
      const consentHtml = await (await pages.signIn("alice", ALICE_PASSWORD)).text();
      assert.match(consentHtml, /detailed user info: identity, name, account info/);
      const location = await pages.decide("allow");
      assert.equal(`${location.origin}${location.pathname}`, redirect);
      assert.equal(location.searchParams.get("state"), state);
      const code = location.searchParams.get("code")!;
      const exchange = await token(
        {
          grant_type: "authorization_code",
          code,
          redirect_uri: redirect,
          code_verifier: verifier,
          ...(secret ? {} : { client_id: clientId }),
        },
        secret ? basic(clientId, secret) : undefined,
      );
      assert.equal(exchange.status, 200, JSON.stringify(exchange.body));
      return {
        ...(exchange.body as { access_token: string; refresh_token: string; scope: string }),
        code,
        verifier,
        redirect,
      };
    }

    describe("authorization code flow", () => {
      it("logs in, asks consent, redirects with code and state, and exchanges the code with PKCE", async () => {
        const result = await authorizationCodeFlow("web-app", WEB_SECRET, "profile basic");
        assert.deepEqual(await scopesOf(result.access_token), ["basic", "profile"]);
        assert.deepEqual(result.scope.split(" ").sort(), ["basic", "profile"]);
        assert.ok(result.refresh_token);
      });

      it("lets a public client refresh without a secret, rotating its refresh token as any client's", async () => {
        const first = await authorizationCodeFlow("spa-app", undefined, "profile");
        assert.ok(first.refresh_token);
        const refreshed = await token({
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: "spa-app",
        });
        assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
        assert.equal(refreshed.body.scope, "profile");
        assert.notEqual(refreshed.body.refresh_token, first.refresh_token);
        assert.equal(await profileStatus(String(refreshed.body.access_token)), 200);

        // A public client has no secret to give: one given is refused.
        const withSecret = await token({
          grant_type: "refresh_token",
          refresh_token: String(refreshed.body.refresh_token),
          client_id: "spa-app",
          client_secret: "made-up",
        });
        assert.equal(withSecret.status, 401);
        assert.equal(withSecret.body.error, "invalid_client");
        // Another client cannot use it, and the one rotated away revokes the family when it comes back.
        const otherClient = await token(
          { grant_type: "refresh_token", refresh_token: String(refreshed.body.refresh_token) },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(otherClient.body.error, "invalid_grant");
        const replay = await token({
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: "spa-app",
        });
        assert.equal(replay.body.error, "invalid_grant");
        const descendant = await token({
          grant_type: "refresh_token",
          refresh_token: String(refreshed.body.refresh_token),
          client_id: "spa-app",
        });
        assert.equal(descendant.body.error, "invalid_grant");
        assert.equal(await profileStatus(String(refreshed.body.access_token)), 401);
      });

      it("lets a public client in only with PKCE", async () => {
        const result = await authorizationCodeFlow("spa-app", undefined, "profile");
        assert.ok(result.access_token);
        const withoutPkce = await fetch(
          `${platform.url}/oauth2/authorize?${new URLSearchParams({
            response_type: "code",
            client_id: "spa-app",
            redirect_uri: SPA_REDIRECT,
            scope: "profile",
          })}`,
          { redirect: "manual" },
        );
        assert.equal(withoutPkce.status, 302);
        const location = new URL(withoutPkce.headers.get("location")!);
        assert.equal(location.searchParams.get("error"), "invalid_request");
      });

      it("treats a code used twice as stolen: refused, and the tokens it gave are revoked", async () => {
        const first = await authorizationCodeFlow("web-app", WEB_SECRET, "profile");
        const again = await token(
          {
            grant_type: "authorization_code",
            code: first.code,
            redirect_uri: first.redirect,
            code_verifier: first.verifier,
          },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(again.status, 400);
        assert.equal(again.body.error, "invalid_grant");
        const refresh = await token(
          { grant_type: "refresh_token", refresh_token: first.refresh_token },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(refresh.body.error, "invalid_grant");
      });

      it("refuses every live access token of the family once a rotated refresh token of it comes back", async () => {
        const first = await authorizationCodeFlow("web-app", WEB_SECRET, "profile");
        const second = await token(
          { grant_type: "refresh_token", refresh_token: first.refresh_token },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(second.status, 200);
        const unrelated = await authorizationCodeFlow("web-app", WEB_SECRET, "profile");
        const family = [first.access_token, String(second.body.access_token)];
        for (const accessToken of family) assert.equal(await profileStatus(accessToken), 200);

        const replay = await token(
          { grant_type: "refresh_token", refresh_token: first.refresh_token },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(replay.body.error, "invalid_grant");
        for (const accessToken of family) {
          assert.equal(await profileStatus(accessToken), 401);
          assert.equal((await introspect(accessToken)).active, false);
        }
        assert.equal(await profileStatus(unrelated.access_token), 200, "another family's token still works");
      });

      it("refuses the access tokens a code gave, refreshed ones too, once the code comes back", async () => {
        const first = await authorizationCodeFlow("web-app", WEB_SECRET, "profile");
        const refreshed = await token(
          { grant_type: "refresh_token", refresh_token: first.refresh_token },
          basic("web-app", WEB_SECRET),
        );
        const family = [first.access_token, String(refreshed.body.access_token)];
        for (const accessToken of family) assert.equal(await profileStatus(accessToken), 200);
        const again = await token(
          {
            grant_type: "authorization_code",
            code: first.code,
            redirect_uri: first.redirect,
            code_verifier: first.verifier,
          },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(again.body.error, "invalid_grant");
        for (const accessToken of family) {
          assert.equal(await profileStatus(accessToken), 401);
          assert.equal((await introspect(accessToken)).active, false);
        }
      });

      it("revokes (RFC 7009) a refresh token with its family's access tokens, refreshed ones too", async () => {
        const first = await authorizationCodeFlow("web-app", WEB_SECRET, "profile");
        const refreshed = await token(
          { grant_type: "refresh_token", refresh_token: first.refresh_token },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(refreshed.status, 200);
        const unrelated = await authorizationCodeFlow("web-app", WEB_SECRET, "profile");
        const family = [first.access_token, String(refreshed.body.access_token)];
        for (const accessToken of family) assert.equal(await profileStatus(accessToken), 200);

        // Another client's revocation changes nothing.
        await revoke(String(refreshed.body.refresh_token), basic("sign-app", SIGN_SECRET));
        for (const accessToken of family) assert.equal(await profileStatus(accessToken), 200);

        await revoke(String(refreshed.body.refresh_token), basic("web-app", WEB_SECRET));
        for (const accessToken of family) {
          const response = await fetch(`${platform.url}/apis/v2/me/profile`, {
            headers: { authorization: `Bearer ${accessToken}` },
          });
          assert.equal(response.status, 401);
          assert.equal(response.headers.get("www-authenticate"), invalidToken("the token has been revoked"));
          await response.arrayBuffer();
          assert.equal((await introspect(accessToken)).active, false);
        }
        const again = await token(
          { grant_type: "refresh_token", refresh_token: String(refreshed.body.refresh_token) },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(again.body.error, "invalid_grant");
        assert.equal(await profileStatus(unrelated.access_token), 200, "another family's token still works");
      });

      it("refuses a wrong code_verifier", async () => {
        const pages = await AuthorizationPages.open(platform.url, {
          response_type: "code",
          client_id: "web-app",
          redirect_uri: REDIRECT,
          scope: "profile",
          code_challenge: pkcePair().challenge,
          code_challenge_method: "S256",
        });
        await pages.signIn("alice", ALICE_PASSWORD);
        const code = (await pages.decide("allow")).searchParams.get("code")!;
        const exchange = await token(
          {
            grant_type: "authorization_code",
            code,
            redirect_uri: REDIRECT,
            code_verifier: pkcePair().verifier,
          },
          basic("web-app", WEB_SECRET),
        );
        assert.equal(exchange.body.error, "invalid_grant");
        assert.equal(exchange.body.error_description, "code_verifier does not match");
      });

      it("never redirects to an unregistered address, and shows login errors on the page", async () => {
        const foreign = await fetch(
          `${platform.url}/oauth2/authorize?response_type=code&client_id=web-app&redirect_uri=https://evil.example/cb`,
          { redirect: "manual" },
        );
        assert.equal(foreign.status, 400);
        assert.match(await foreign.text(), /redirect_uri is not registered/);

        const pages = await AuthorizationPages.open(platform.url, {
          response_type: "code",
          client_id: "web-app",
          redirect_uri: REDIRECT,
          scope: "profile",
        });
        assert.match(await (await pages.signIn("alice", "nope")).text(), /Wrong account or password\./);
        const withoutCookie = await pages.signIn("alice", ALICE_PASSWORD, { withCookie: false });
        assert.equal(withoutCookie.status, 400, "a request id is bound to the browser that started it");
      });

      it("hands an implicit-grant token in the fragment only to applications allowed it", async () => {
        const pages = await AuthorizationPages.open(platform.url, {
          response_type: "token",
          client_id: "spa-app",
          redirect_uri: SPA_REDIRECT,
          scope: "profile",
          state: "s1",
        });
        await pages.signIn("alice", ALICE_PASSWORD);
        const fragment = new URLSearchParams((await pages.decide("allow")).hash.slice(1));
        assert.equal(fragment.get("state"), "s1");
        assert.equal(fragment.get("token_type"), "bearer");
        const profile = await fetch(
          `${platform.url}/apis/v2/me/profile?access_token=${fragment.get("access_token")}`,
        );
        assert.equal(profile.status, 200);

        const refused = await fetch(
          `${platform.url}/oauth2/authorize?response_type=token&client_id=web-app&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=profile`,
          { redirect: "manual" },
        );
        assert.equal(
          new URL(refused.headers.get("location")!).searchParams.get("error"),
          "unsupported_response_type",
        );
      });
    });

    describe("signing keys", () => {
      it("rotate without breaking tokens already issued, and the new key signs from then on", async () => {
        const before = await token(
          { grant_type: "client_credentials", scope: "sys_profile" },
          basic("sign-app", SIGN_SECRET),
        );
        const rotated = await fetch(`${platform.url}/admin/signing-keys/rotate`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(rotated.status, 200);
        const jwks = (await (await fetch(`${platform.url}/oauth2/jwks`)).json()) as { keys: JWK[] };
        assert.equal(jwks.keys.length, 2, "the retired key stays published");
        const after = await token(
          { grant_type: "client_credentials", scope: "sys_profile" },
          basic("sign-app", SIGN_SECRET),
        );
        const kidOf = (jwt: unknown) =>
          JSON.parse(Buffer.from(String(jwt).split(".")[0]!, "base64url").toString()).kid as string;
        assert.notEqual(kidOf(after.body.access_token), kidOf(before.body.access_token));
        for (const issued of [before, after]) {
          assert.equal((await introspect(String(issued.body.access_token))).active, true);
        }
      });
    });

    describe("admin API", () => {
      it("needs the operator token, applies bootstrap documents and rotates secrets", async () => {
        const body = JSON.stringify({
          applications: [{ id: "new-app", name: "New", scopes: ["signature"], secret: "x".repeat(40) }],
        });
        const anonymous = await fetch(`${platform.url}/admin/bootstrap`, {
          method: "PUT",
          body,
          headers: { "content-type": "application/json" },
        });
        assert.equal(anonymous.status, 401);
        const applied = await fetch(`${platform.url}/admin/bootstrap`, {
          method: "PUT",
          body,
          headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(applied.status, 200);
        assert.equal(
          (await token({ grant_type: "client_credentials" }, basic("new-app", "x".repeat(40)))).status,
          200,
        );
        const rotated = await fetch(`${platform.url}/admin/applications/new-app/secret`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        const { secret } = (await rotated.json()) as { secret: string };
        assert.equal(
          (await token({ grant_type: "client_credentials" }, basic("new-app", secret))).status,
          200,
        );
        assert.equal(
          (await token({ grant_type: "client_credentials" }, basic("new-app", "x".repeat(40)))).status,
          401,
        );
        const invalid = await fetch(`${platform.url}/admin/bootstrap`, {
          method: "PUT",
          body: JSON.stringify({ applications: [{ id: "bad", name: "Bad", scopes: ["no_such_scope"] }] }),
          headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(invalid.status, 400);
        assert.match(((await invalid.json()) as { error: string }).error, /unknown scope no_such_scope/);
      });
    });
  });
}
