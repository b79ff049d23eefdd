import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { nastyJsonValue, nastyString, percentEncode, urlValue } from "./support/arbitraries.ts";
import { checkResponse } from "./support/envelopes.ts";
import { startFuzzPlatform } from "./support/fuzz-platform.ts";
import { compact, type FuzzRequest, send } from "./support/http-client.ts";
import { fuzzProperty } from "./support/run-property.ts";
import { FuzzTally } from "./support/tally.ts";

const tally = new FuzzTally(import.meta.filename);
const platform = await startFuzzPlatform();
const sys = { authorization: `Bearer ${platform.tokens.sys}` };
const user = { authorization: `Bearer ${platform.tokens.user}` };

after(async () => {
  await tally.report();
  await platform.stop();
});

interface Envelope {
  errno: number;
  entities: Record<string, unknown>[];
}

/** Text that Postgres stores as it is: no NUL, no unpaired surrogate (those are refused, and checked elsewhere). */
const storable = nastyString.filter((text) => !text.includes("\0") && Buffer.from(text).toString() === text);

/** Parameters carried as spec 001 lets a client carry them: the query, a form or a JSON body. */
function carried(
  method: string,
  path: string,
  parameters: Record<string, unknown>,
  carrier: string,
): FuzzRequest {
  const text = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
  const form = Object.entries(parameters)
    .map(([name, value]) => `${name}=${percentEncode(text(value))}`)
    .join("&");
  if (carrier === "json")
    return {
      method,
      path,
      headers: { "content-type": "application/json", ...sys },
      body: JSON.stringify(parameters),
    };
  if (carrier === "form")
    return {
      method,
      path,
      headers: { "content-type": "application/x-www-form-urlencoded", ...sys },
      body: form,
    };
  return { method, path: `${path}?${form}`.slice(0, 12_000), headers: sys };
}

const carrier = fc.constantFrom("query", "json", "form");

describe("directory writes and reads with odd input", () => {
  it("stores what it accepts exactly as given: a created entry reads back with its name", async () => {
    let created = 0;
    await fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "directory writes",
      runs: 200,
      arbitrary: fc
        .record({
          type: fc.constantFrom("user", "dept", "post"),
          code: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{2,20}$/), storable),
          name: fc.oneof(storable, fc.string({ minLength: 1 })),
          // Half the inputs carry no extras, so well-formed ones reach the store often enough to check it.
          extra: fc.oneof(
            fc.constant({}),
            fc.record(
              {
                description: fc.oneof(storable, nastyJsonValue),
                tags: nastyString,
                meta: fc.oneof(
                  fc.dictionary(storable, storable, { maxKeys: 3 }),
                  nastyJsonValue,
                  nastyString,
                ),
                email: nastyString,
                phone: nastyString,
                title: nastyString,
                express: fc.oneof(fc.boolean(), nastyString),
                parent: fc.oneof(fc.constant(platform.known.deptCode), nastyString),
                independent: fc.oneof(fc.boolean(), fc.constantFrom("true", "1", "yes")),
                formal: fc.oneof(fc.boolean(), nastyJsonValue),
                source: nastyString,
                domain: fc.oneof(fc.constant("fuzz.edu"), nastyString),
              },
              { requiredKeys: [] },
            ),
          ),
          carrier,
        })
        .map(({ type, code, name, extra, carrier }) =>
          compact({
            type,
            code,
            name,
            request: carried("PUT", `/apis/v2/triple/${type}`, { code, name, ...extra }, carrier),
          }),
        ),
      check: async ({ type, code, name, request }) => {
        const answer = await send(platform.url, request);
        checkResponse(request, answer);
        const body = JSON.parse(answer.body.toString()) as Envelope;
        if (body.errno !== 0) return;
        created++;
        const path = `/apis/v2/triple/${type}/${percentEncode(code)}`;
        const read = await send(platform.url, { method: "GET", path, headers: sys });
        checkResponse({ method: "GET", path }, read);
        const [entry] = (JSON.parse(read.body.toString()) as Envelope).entities;
        // A code with an `@` may name a tenant: such an entry is read another way.
        if (!code.includes("@")) assert.equal(entry?.name, name, "the entry reads back with another name");
      },
    });
    assert.ok(created > 0, "nothing was created: the property never got past the checks");
  });

  it("changes and removes entries, or names the parameter it cannot use", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "directory writes",
      runs: 100,
      arbitrary: fc
        .record({
          method: fc.constantFrom("POST", "DELETE"),
          type: fc.constantFrom("user", "dept", "post"),
          idc: fc.oneof(
            fc.constantFrom(
              platform.known.account,
              platform.known.deptCode,
              platform.known.postCode,
              `${platform.known.deptCode}@fuzz.edu`,
            ),
            storable,
          ),
          parameters: fc.dictionary(
            fc.constantFrom(
              "description",
              "tags",
              "meta",
              "email",
              "phone",
              "title",
              "parent",
              "source",
              "domain",
              "name",
              "code",
            ),
            fc.oneof(nastyString, nastyJsonValue),
            { maxKeys: 4 },
          ),
          carrier,
        })
        .map(({ method, type, idc, parameters, carrier }) =>
          // Known entries are changed, never removed: the properties after this one need them.
          compact({
            request: carried(
              method,
              `/apis/v2/triple/${type}/${percentEncode(method === "DELETE" ? `${idc}-gone` : idc)}`,
              parameters,
              carrier,
            ),
          }),
        ),
      check: async ({ request }) => checkResponse(request, await send(platform.url, request)),
    }));

  it("grants, takes and searches positions with odd codes, numbers and filters", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "directory positions",
      runs: 100,
      arbitrary: fc
        .record({
          method: fc.constantFrom("GET", "PUT", "DELETE"),
          position: fc.oneof(
            fc.constantFrom(
              `${platform.known.deptCode}:${platform.known.postCode}`,
              "*:*",
              `${platform.known.deptCode}:*`,
              ":",
              "a:",
              ":b",
              ",,,",
              Array.from({ length: 60 }, () => "*:*").join(","),
            ),
            storable,
          ),
          parameters: fc.record(
            {
              code: fc.oneof(fc.constantFrom(platform.known.account, platform.known.userId), storable),
              number: nastyString,
              source: nastyString,
              start: fc.oneof(
                fc.nat(),
                fc.constantFrom("-1", "1e309", "18446744073709551616", "NaN", "0x10"),
              ),
              limit: fc.oneof(fc.nat(), fc.constantFrom("0", "1001", "-0", "1.5", "")),
            },
            { requiredKeys: [] },
          ),
          carrier,
        })
        .map(({ method, position, parameters, carrier }) =>
          compact({
            request: carried(
              method,
              `/apis/v2/position/${percentEncode(position)}/users`,
              parameters,
              method === "GET" ? "query" : carrier,
            ),
          }),
        ),
      check: async ({ request }) => checkResponse(request, await send(platform.url, request)),
    }));

  it("searches users by any accounts, keywords and pages", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "directory search",
      runs: 80,
      arbitrary: fc
        .record(
          {
            accounts: fc.oneof(
              urlValue,
              fc
                .array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 900, maxLength: 1100 })
                .map((list) => list.join(",")),
            ),
            keyword: fc.oneof(
              urlValue,
              fc.constant(Array.from({ length: 30 }, (_, i) => `k${i}`).join("%20")),
            ),
            positions: urlValue,
            start: fc.oneof(fc.nat(), fc.constantFrom("-1", "1e309", "10000001", "abc")),
            limit: fc.oneof(fc.nat({ max: 2000 }), fc.constantFrom("0", "-0", "1.5")),
            domain: fc.oneof(fc.constant("fuzz.edu"), urlValue),
          },
          { requiredKeys: [] },
        )
        .map((query) =>
          compact({
            request: {
              method: "GET",
              path: `/apis/v2/triple/users?${Object.entries(query)
                .map(([name, value]) => `${name}=${value}`)
                .join("&")}`.slice(0, 12_000),
              headers: sys,
            },
          }),
        ),
      check: async ({ request }) => checkResponse(request, await send(platform.url, request)),
    }));

  it("adds and removes preference values of any text for the token's user", () =>
    fuzzProperty({
      baseUrl: platform.url,
      tally,
      family: "directory preferences",
      runs: 100,
      arbitrary: fc
        .record({
          method: fc.constantFrom("GET", "PUT", "DELETE"),
          key: fc.oneof(
            fc.constantFrom("FavoriteApps", "FavoriteTasks", "FavoriteTags", "fuzz.key", "TenantApps"),
            storable,
          ),
          value: fc.oneof(fc.constantFrom("1", "-1", "1e309", "9999999999999999", "app-1"), storable),
        })
        .map(({ method, key, value }) =>
          compact({
            request: {
              method,
              path: `/apis/v2/me/preference/${percentEncode(key)}${method === "GET" ? "" : `/${percentEncode(value)}`}`,
              headers: user,
            },
          }),
        ),
      check: async ({ request }) => checkResponse(request, await send(platform.url, request)),
    }));
});
