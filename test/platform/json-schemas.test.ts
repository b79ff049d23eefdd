import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { jsonSchemas } from "../../contracts/json-schemas.ts";

describe("published JSON Schemas", () => {
  it("match the zod contracts (run `npm run schema` after changing them)", async () => {
    for (const [file, schema] of Object.entries(jsonSchemas())) {
      const committed = JSON.parse(
        await readFile(new URL(`../../contracts/${file}`, import.meta.url), "utf8"),
      );
      assert.deepEqual(committed, JSON.parse(JSON.stringify(schema)), `contracts/${file} is out of date`);
    }
  });
});
