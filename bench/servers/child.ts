/** What every benchmark child script shares: how it fails, and how a server child serves until it is stopped. */
import type { FastifyInstance } from "fastify";

/** Runs a child's `main`: a failure is written to stderr (the parent shows it) and the process exits 1. */
export function runChild(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

/** Serves `app` on 127.0.0.1:`port` until SIGTERM, which closes it, then runs `close` (a store) and exits 0. */
export async function serveUntilTerminated(
  app: FastifyInstance,
  port: number,
  close: () => void | Promise<void> = () => undefined,
): Promise<void> {
  await app.listen({ host: "127.0.0.1", port });
  process.on("SIGTERM", () => {
    void app
      .close()
      .then(close)
      .then(() => process.exit(0));
  });
}
