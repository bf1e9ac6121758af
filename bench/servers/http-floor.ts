/**
 * cpln-local's HTTP stack without its domain: the app cpln-local serves (`buildApp`: its body parser and checks, its
 * bearer-key authentication against a seeded store, its hooks, its reply serializer, its request inspection), with one
 * route, `POST /org/:org/gvc/:gvc/volumeset`, answering 201 with a volume set built from the body, as a create answers,
 * stored nowhere. What cpln-local's create costs beyond its record service and store: beside the bare route, the price of
 * cpln-local's own HTTP layer. `node dist/bench/servers/http-floor.js <port> <org> <admin key>`.
 */
import { randomUUID } from "node:crypto";
import { buildApp } from "../../server/app.js";
import { FaultInjector } from "../../server/faults.js";
import { RequestLog } from "../../server/inspect.js";
import { seededService } from "../lib/in-process.js";
import { runChild, serveUntilTerminated } from "./child.js";

async function main(): Promise<void> {
  const [portText, org, adminKey] = process.argv.slice(2);
  if (org === undefined || adminKey === undefined) throw new Error("usage: http-floor.js <port> <org> <admin key>");
  const { store, authenticator } = await seededService(":memory:", org, adminKey);
  const app = buildApp({
    authenticator,
    faults: new FaultInjector(),
    defaultOrg: org,
    logger: false,
    requestLog: undefined,
    recent: new RequestLog(),
    store,
  });
  app.post<{ Params: { org: string; gvc: string }; Body: Record<string, unknown> }>(
    "/org/:org/gvc/:gvc/volumeset",
    async (request, reply) => {
      const { org: orgName, gvc } = request.params;
      const name = String(request.body["name"]);
      const now = new Date().toISOString();
      const self = `/org/${orgName}/gvc/${gvc}/volumeset/${name}`;
      return reply
        .code(201)
        .header("location", self)
        .send({
          kind: "volumeset",
          id: randomUUID(),
          name,
          description: request.body["description"] ?? name,
          version: 1,
          tags: request.body["tags"] ?? {},
          created: now,
          lastModified: now,
          gvc,
          spec: request.body["spec"],
          status: {},
          links: [
            { rel: "self", href: self },
            { rel: "org", href: `/org/${orgName}` },
            { rel: "gvc", href: `/org/${orgName}/gvc/${gvc}` },
          ],
        });
    },
  );
  app.get("/about", { config: { auth: "none" } }, async () => ({ kind: "about", version: "http-floor" }));
  await serveUntilTerminated(app, Number(portText ?? "0"), () => store.close());
}

runChild(main);
