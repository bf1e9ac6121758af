// The OpenAPI document states the shape of a snapshot's `serviceAccountKeys` items exactly as the import checks it
// (issue 39 item 8): the document let any string be a key name or a hash, so Schemathesis drew schema-valid snapshots
// the server refused (ST202 on `PUT /_cpln-local/org/{org}/state`). Both now come from one zod schema.
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OrgSnapshot, RunningServer } from "../../server/index.js";
import { ORG, call, start } from "./helpers.js";

let server: RunningServer;
let validate: (value: unknown) => boolean;

beforeAll(async () => {
  server = await start();
  const answer = await fetch(`${server.url}/openapi.json`);
  const doc = (await answer.json()) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref: string } }> } }>>;
    components: { schemas: Record<string, Record<string, unknown>> };
  };
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    ajv.addSchema(schema, `#/components/schemas/${name}`);
  }
  const ref = doc.paths["/_cpln-local/org/{org}/state"]?.["put"]?.requestBody?.content["application/json"]?.schema.$ref;
  expect(ref).toBe("#/components/schemas/LocalSnapshotImport");
  validate = (value) => ajv.validate(ref ?? "", value);
});
afterAll(async () => {
  await server.close();
});

describe("serviceAccountKeys in the document and at the import", () => {
  it("an item is valid by the document exactly when the import takes its shape", async () => {
    const exported = await call(server, "GET", `/_cpln-local/org/${ORG}/state`, { auth: `Bearer ${server.adminKey}` });
    expect(exported.status).toBe(200);
    const saved = exported.body as OrgSnapshot;
    const [key] = saved.serviceAccountKeys;
    expect(key).toBeDefined();
    const items: [string, Record<string, unknown>, boolean][] = [
      ["the export's own key", { ...key }, true],
      ["a key name with a dot", { ...key, keyName: "a.b" }, false],
      ["an empty key name", { ...key, keyName: "" }, false],
      ["a key name over 300 characters", { ...key, keyName: "k".repeat(301) }, false],
      ["a hash that is not SHA-256 hex", { ...key, hash: "not-a-hash" }, false],
      ["an upper-case hash", { ...key, hash: key?.hash.toUpperCase() }, false],
      ["a field the format lacks", { ...key, secret: "x" }, false],
      ["no serviceAccount", { keyName: key?.keyName, hash: key?.hash }, false],
    ];
    for (const [what, item, valid] of items) {
      const snapshot = { ...saved, serviceAccountKeys: [item] };
      expect([what, validate(snapshot)]).toEqual([what, valid]);
      const imported = await call(server, "PUT", `/_cpln-local/org/${ORG}/state`, {
        auth: `Bearer ${server.adminKey}`,
        body: snapshot,
      });
      if (valid) expect([what, imported.status]).toEqual([what, 200]);
      else {
        expect([what, imported.status]).toEqual([what, 400]);
        expect(JSON.stringify(imported.body)).toContain(
          "serviceAccountKeys.0 must be {keyName, serviceAccount, hash} with a key name",
        );
      }
    }
    // Every refusal left the org as the last import made it.
    const after = await call(server, "GET", `/_cpln-local/org/${ORG}/state`, { auth: `Bearer ${server.adminKey}` });
    expect((after.body as OrgSnapshot).serviceAccountKeys).toEqual([key]);
  });
});
