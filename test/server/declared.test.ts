/**
 * Every kind created through the API, served from its declaration's example bodies alone (`examples` in
 * api/kinds/<kind>.ts): create, get, list, patch, query, permissions, access report, apply (PUT to the collection),
 * a change of an immutable field refused (409), delete. No per-kind list: a new kind is covered here by its
 * declaration (test/provider/scratchKind.test.ts declares one and runs this file over it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kindNames, kinds, permissionNames } from "../../api/kinds/index.js";
import { collectionPath, selfLink } from "../../api/links.js";
import type { RunningServer } from "../../server/index.js";
import { plainFields, withPaths } from "../support/examples.js";
import { ANY_ID, ANY_TIME, ORG, admin, call, field, start } from "./helpers.js";

let server: RunningServer;

beforeAll(async () => {
  server = await start();
});

afterAll(async () => {
  await server.close();
});

type Body = Record<string, unknown>;

const creatable = kindNames.filter((kind) => kinds[kind].examples.create !== undefined);

describe.each(creatable)("%s from its declaration's examples", (kind) => {
  const descriptor = kinds[kind];
  const gvc = descriptor.scope === "gvc" ? "default" : undefined;
  const collection = collectionPath(ORG, kind, gvc);
  const example = descriptor.examples.create!(`declared-${kind}`);
  // The example names the object (a user by email, a domain by a DNS name made from the one given).
  const name = String(example[descriptor.addressing.field]);
  const item = selfLink(ORG, kind, name, gvc);
  const recordSchema = descriptor.schemas.record();
  const valid = (body: unknown) => expect(recordSchema.safeParse(body).error?.issues ?? [], kind).toEqual([]);
  let created: Body;

  it("create: 201 at its self link, a record of the kind's schema, as GET and the list answer it", async () => {
    const answer = await admin(server).post(collection, example);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.headers["location"]).toBe(item);
    created = answer.body as Body;
    valid(created);
    expect(created).toMatchObject({
      kind,
      id: ANY_ID,
      name,
      description: example["description"] ?? name,
      version: 1,
      tags: example["tags"] ?? {},
      created: ANY_TIME,
      lastModified: ANY_TIME,
    });
    expect(field<Body[]>(created, "links")).toContainEqual({ rel: "self", href: item });
    expect((await admin(server).get(item)).body).toEqual(created);
    const listed = field<Body[]>((await admin(server).get(collection)).body, "items");
    expect(listed.find((i) => i["name"] === name)).toEqual(created);
  });

  it("patch: the example patch's fields, version 2; a query by name finds the patched record", async () => {
    const patch = descriptor.examples.patch("m1");
    const answer = await admin(server).patch(item, patch);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    valid(answer.body);
    expect(answer.body).toMatchObject({ ...plainFields(patch), id: created["id"], version: 2 });
    const query = await admin(server).post(`${collection}/-query`, {
      spec: { terms: [{ property: "name", value: name }] },
    });
    expect(query.status).toBe(200);
    expect(field(query.body, "items")).toEqual([answer.body]);
  });

  it("permissions and the access report list the kind's catalog", async () => {
    const schema = await admin(server).get(`${collection}/-schema/permissions`);
    expect(field<Body[]>(schema.body, "items").map((p) => p["name"])).toEqual(permissionNames(kind));
    const report = await admin(server).get(`${item}/-accessreport`);
    expect(report.status).toBe(200);
    expect(field<Body[]>(report.body, "permissions").map((p) => p["name"])).toEqual(permissionNames(kind));
  });

  const changes = descriptor.examples.immutableChange ?? {};
  // Only for kinds with an immutable field: defined, not skipped, so that a run counts no skipped tests.
  if (Object.keys(changes).length > 0)
    it("a change of an immutable field in place is a 409 naming it, and the object stays", async () => {
      const before = (await admin(server).get(item)).body;
      for (const [path, value] of Object.entries(changes)) {
        const answer = await admin(server).patch(item, withPaths({}, { [path]: value }));
        expect([path, answer.status], JSON.stringify(answer.body)).toEqual([path, 409]);
        expect(JSON.stringify(answer.body)).toContain(path);
      }
      expect((await admin(server).get(item)).body).toEqual(before);
    });

  it("apply (PUT to the collection): creates a new object (201), then replaces its writable fields (200)", async () => {
    const body = descriptor.examples.create!(`applied-${kind}`);
    const applied = String(body[descriptor.addressing.field]);
    const first = await call(server, "PUT", collection, { auth: `Bearer ${server.adminKey}`, body });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers["location"]).toBe(selfLink(ORG, kind, applied, gvc));
    const again = { ...body, description: "applied again" };
    const second = await call(server, "PUT", collection, { auth: `Bearer ${server.adminKey}`, body: again });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body).toMatchObject({ name: applied, description: "applied again", version: 2 });
  });

  it("delete: 202 and gone (a kind whose objects cannot be deleted: 403, and it stays)", async () => {
    const deleted = await admin(server).delete(item);
    if (descriptor.deletable === false) {
      expect(deleted.status).toBe(403);
      expect((await admin(server).get(item)).status).toBe(200);
      return;
    }
    expect(deleted.status).toBe(202);
    expect((await admin(server).get(item)).status).toBe(404);
    expect((await admin(server).delete(item)).status).toBe(404);
  });
});
