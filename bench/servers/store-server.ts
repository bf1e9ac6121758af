/**
 * cpln-local in a process of its own for the scaling benchmark: `startServer()` on a port the bench chose, plus an IPC
 * channel through which the bench asks it to write many records straight through its own `store` (one transaction
 * per batch), to report its memory, or to close. Run by `forkStoreServer()` in `bench/lib/procs.ts`:
 * `dist/bench/servers/store-server.js <port> <data file> <org> <admin key>`.
 */
import { randomUUID } from "node:crypto";
import { startServer } from "../../server/index.js";
import type { JsonObject } from "../../server/store/store.js";
import type { CloneTemplate, StoreServerCommand, StoreServerReply } from "../lib/procs.js";
import { runChild } from "./child.js";

const BATCH = 5_000;

/** Copies the template `count` times as `<prefix><start+i>`, each with its own UUID and cycled tags. */
async function clone(
  server: Awaited<ReturnType<typeof startServer>>,
  template: CloneTemplate,
  count: number,
  prefix: string,
  start: number,
): Promise<Record<string, number>> {
  const source = await server.store.get(template.org, template.kind, template.scope, template.name);
  if (!source) throw new Error(`no ${template.kind} ${template.name} in ${template.org}/${template.scope} to copy`);
  const text = JSON.stringify(source.doc);
  const namePattern = new RegExp(template.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g");
  const started = performance.now();
  let created = 0;
  for (let from = 0; from < count; from += BATCH) {
    const to = Math.min(count, from + BATCH);
    await server.store.transaction(async (tx) => {
      for (let i = from; i < to; i++) {
        const name = `${prefix}${String(start + i).padStart(6, "0")}`;
        const id = randomUUID();
        const doc = JSON.parse(text.replace(namePattern, name).split(source.id).join(id)) as JsonObject;
        if (template.cycleTags) {
          const tags = (
            typeof doc.tags === "object" && doc.tags !== null && !Array.isArray(doc.tags) ? doc.tags : {}
          ) as JsonObject;
          for (const [key, values] of Object.entries(template.cycleTags))
            tags[key] = values[(start + i) % values.length] ?? "";
          doc.tags = tags;
        }
        const ok = await tx.create({
          org: template.org,
          kind: template.kind,
          scope: template.scope,
          name,
          id,
          version: source.version,
          doc,
        });
        if (ok) created++;
      }
    });
  }
  return { created, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const [portText, data, org, adminKey] = process.argv.slice(2);
  if (!portText || !data || !org || !adminKey) throw new Error("usage: store-server.js <port> <data> <org> <adminKey>");
  const server = await startServer({ host: "127.0.0.1", port: Number(portText), data, org, adminKey, logger: false });
  const reply = (message: StoreServerReply) => process.send?.(message);
  process.on("message", (message: StoreServerCommand) => {
    void (async () => {
      try {
        if (message.op === "clone") {
          reply({
            id: message.id,
            ok: true,
            result: await clone(server, message.template, message.count, message.prefix, message.start),
          });
        } else if (message.op === "stats") {
          // RSS as the requests left it, and the heap still live after a full collection (the data the server holds).
          const before = process.memoryUsage();
          const collect = (globalThis as { gc?: () => void }).gc;
          collect?.();
          const after = process.memoryUsage();
          reply({
            id: message.id,
            ok: true,
            result: { rss: before.rss, heapUsed: before.heapUsed, heapLive: collect ? after.heapUsed : Number.NaN },
          });
        } else {
          await server.close();
          reply({ id: message.id, ok: true, result: {} });
          process.disconnect?.();
          process.exit(0);
        }
      } catch (error) {
        reply({
          id: message.id,
          ok: false,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      }
    })();
  });
  process.on("SIGTERM", () => {
    void server.close().then(() => process.exit(0));
  });
}

runChild(main);
