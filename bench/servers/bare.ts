/**
 * The framework's limit: a fastify server with one route returning a constant JSON body, nothing else (no auth, no
 * storage, no logging). `node dist/bench/servers/bare.js <port>`; every path answers, so the bench can hit the same
 * paths it sends to cpln-local.
 */
import Fastify from "fastify";

const body = { kind: "about", version: "bare", message: "constant" };

async function main(): Promise<void> {
  const port = Number(process.argv[2] ?? "0");
  const app = Fastify({ logger: false });
  app.all("/*", async () => body);
  await app.listen({ host: "127.0.0.1", port });
  process.on("SIGTERM", () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
