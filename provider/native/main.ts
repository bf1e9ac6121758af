#!/usr/bin/env node
/**
 * `pulumi-resource-cpln-native`: the plugin executable. The engine starts it with its own address as the last
 * argument (possibly after `--logtostderr`, `-v=N`, `--tracing <url>`), reads the port from the first stdout line,
 * and talks gRPC to 127.0.0.1:<port>. Nothing else is written to stdout; the process ends when the engine kills it.
 */
import { startNativeProvider } from "./server.js";

async function main(): Promise<void> {
  const { port } = await startNativeProvider(0);
  process.stdout.write(`${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`pulumi-resource-cpln-native: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
