import { writeFile } from "node:fs/promises";
import { jsonSchemas } from "../contracts/json-schemas.ts";

// `npm run schema`: writes the JSON Schema files of the contracts (the bootstrap file's) into contracts/.
for (const [file, schema] of Object.entries(jsonSchemas())) {
  await writeFile(new URL(`../contracts/${file}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`contracts/${file}`);
}
