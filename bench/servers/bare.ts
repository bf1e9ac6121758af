/**
 * The framework's limit: a fastify server with one route returning a constant JSON body, nothing else (no auth, no
 * storage, no logging). `node dist/bench/servers/bare.js <port> [bytes]`; every path answers, so the bench can hit the
 * same paths it sends to cpln-local. With `bytes`, the body is a JSON text of exactly that many bytes, sent as it is
 * (the floor for an answer of that size: what the route costs beyond writing the bytes is nothing).
 */
import Fastify from "fastify";
import { runChild, serveUntilTerminated } from "./child.js";

const body = { kind: "about", version: "bare", message: "constant" };

/** A JSON object text of exactly `bytes` bytes (at least the smallest such object's 15). */
function paddedText(bytes: number): string {
  const shell = '{"padding":""}';
  return `{"padding":"${"x".repeat(Math.max(0, bytes - shell.length))}"}`;
}

async function main(): Promise<void> {
  const port = Number(process.argv[2] ?? "0");
  const bytes = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
  const app = Fastify({ logger: false });
  if (bytes === undefined) app.all("/*", async () => body);
  else {
    const text = paddedText(bytes);
    app.all("/*", async (_request, reply) => reply.type("application/json; charset=utf-8").send(text));
  }
  await serveUntilTerminated(app, port);
}

runChild(main);
