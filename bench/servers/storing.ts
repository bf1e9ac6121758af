/**
 * The storage floor of a write: a fastify server that keeps each POST body as a new record and merges each PATCH
 * body into the record at its path, through cpln-local's own store (`SqliteStore` on a WAL file: one savepoint per
 * write, commit groups, every answer sent once its commit is durable), and answers the stored document. Nothing
 * else: no authentication, authorization, validation, quota, links or request log. What any create or update that
 * keeps its data the way cpln-local does must at least spend. `node dist/bench/servers/storing.js <port> <data file>`;
 * a GET answers a constant body, as the bare route does.
 */
import { randomUUID } from "node:crypto";
import Fastify from "fastify";
import { SqliteStore } from "../../server/store/sqlite.js";
import type { JsonObject, StoredRecord } from "../../server/store/store.js";
import { runChild, serveUntilTerminated } from "./child.js";

const ORG = "bench";
const KIND = "record";

function bodyObject(body: unknown): JsonObject {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as JsonObject) : {};
}

/** Serves the storing route: each write is answered once its commit group is durable (a transaction settles then). */
async function main(): Promise<void> {
  const port = Number(process.argv[2] ?? "0");
  const data = process.argv[3];
  if (data === undefined) throw new Error("usage: storing.js <port> <data file>");
  const store = new SqliteStore(data);
  const app = Fastify({ logger: false });
  app.post("/*", async (request, reply) => {
    const body = bodyObject(request.body);
    const now = new Date().toISOString();
    const name = String(body["name"] ?? randomUUID());
    // Assigned, not added after a spread (V8 on Node 20 adds keys to a spread copy slowly: µs each).
    const doc: JsonObject = Object.assign({}, body, {
      kind: KIND,
      id: randomUUID(),
      version: 1,
      created: now,
      lastModified: now,
    });
    const record: StoredRecord = { org: ORG, kind: KIND, scope: "", name, id: String(doc["id"]), version: 1, doc };
    const created = await store.transaction((tx) => tx.create(record));
    return reply.code(created ? 201 : 409).send(created ? doc : { code: "AlreadyExists" });
  });
  app.patch("/*", async (request) => {
    const body = bodyObject(request.body);
    const now = new Date().toISOString();
    return store.transaction(async (tx) => {
      const current = await tx.get(ORG, KIND, "", request.url);
      const version = (current?.version ?? 0) + 1;
      const doc: JsonObject = { ...current?.doc, ...body, version, lastModified: now };
      const next = {
        org: ORG,
        kind: KIND,
        scope: "",
        name: request.url,
        id: current?.id ?? randomUUID(),
        version,
        doc,
      };
      const stored = current ? await tx.replace(next, current.version) : await tx.create(next);
      if (!stored) throw new Error(`${request.url} changed meanwhile`);
      return doc;
    });
  });
  app.get("/*", async () => ({ kind: "about", version: "storing" }));
  await serveUntilTerminated(app, port, () => store.close());
}

runChild(main);
