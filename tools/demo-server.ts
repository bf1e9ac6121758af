/**
 * `cpln-local` for the demo, with the request log on: started by `tools/demo.ts` with `fork`, it runs the same
 * `startServer` the `cpln-local` command runs and answers the parent's IPC messages, so the demo can show the exact
 * PATCH bodies the provider sent. Exits when told to stop or when the parent goes away.
 *
 * Environment: CPLN_TOKEN (the admin key), DEMO_DATA (SQLite file), DEMO_ORG, DEMO_SEED (seed file).
 */
import { startServer } from "../server/index.js";

export type DemoServerMessage =
  | { type: "ready"; url: string; org: string; pid: number }
  | { type: "requests"; requests: { method: string; path: string; body: unknown; status: number }[] }
  | { type: "failed"; message: string };

export type DemoServerCommand = { type: "requests" } | { type: "stop" };

async function main(): Promise<void> {
  const send = (message: DemoServerMessage): void => {
    process.send?.(message);
  };
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    data: process.env.DEMO_DATA ?? ":memory:",
    org: process.env.DEMO_ORG ?? "demo",
    adminKey: process.env.CPLN_TOKEN,
    seedFile: process.env.DEMO_SEED,
    recordRequests: true,
    logger: false,
  });
  let closing = false;
  const stop = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await server.close();
    process.exit(0);
  };
  process.on("message", (message: DemoServerCommand) => {
    if (message.type === "requests") send({ type: "requests", requests: server.requests() });
    else void stop();
  });
  process.on("disconnect", () => void stop());
  process.on("SIGTERM", () => void stop());
  send({ type: "ready", url: server.url, org: server.org, pid: process.pid });
}

main().catch((error: unknown) => {
  process.send?.({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
