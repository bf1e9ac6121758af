/**
 * Diagnostics for the user, sent to the Pulumi engine's `Engine.Log` (pulumi/pulumi `proto/pulumi/engine.proto`), as a
 * provider does: the engine starts every provider process with its own gRPC address as the last argument (the native
 * plugin and the dynamic-provider host alike; see provider/native/main.ts), and shows a logged message under the
 * resource its `urn` names (with no urn, among the run's global diagnostics), at its severity.
 *
 * Why not `pulumi.log`: in a provider process it has no engine connection (the dynamic-provider host never dials the
 * address it is given, pulumi/pulumi#6065), so it writes to stderr, which the engine shows as an "info" line for the
 * dynamic-provider host and hides for any other plugin (pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go`,
 * `newPlugin`: "Hiding logs from" non-dynamic resource plugins). Where no engine answers (a provider run by hand, a
 * test), the message goes to stderr.
 */
import type * as grpcTypes from "@grpc/grpc-js";
import type * as engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb";

export type Severity = "info" | "warning";

/** How long one message may take to reach the engine before it goes to stderr instead. */
const LOG_DEADLINE_MS = 5_000;

/** The engine's address: the last argument, `host:port` (flags such as `-v=9` or `--tracing <url>` come before it). */
export function engineAddress(argv: readonly string[] = process.argv): string | undefined {
  const last = argv.length > 2 ? argv[argv.length - 1] : undefined;
  return last !== undefined && /^[A-Za-z0-9.[\]:-]+:\d{1,5}$/.test(last) ? last : undefined;
}

let client: engineGrpc.EngineClient | undefined;
/** Set once a message could not be delivered: later ones go to stderr at once. */
let unreachable = false;

// Loaded when used: the dynamic providers' serialized closures must not capture gRPC.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const grpcModule = (): typeof grpcTypes => require("@grpc/grpc-js") as typeof grpcTypes;

function engineClient(address: string): engineGrpc.EngineClient {
  if (client === undefined) {
    const grpc = grpcModule();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { EngineClient } = require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof engineGrpc;
    client = new EngineClient(address, grpc.credentials.createInsecure());
  }
  return client;
}

function toStderr(severity: Severity, message: string): void {
  process.stderr.write(`${severity}: ${message}\n`);
}

/**
 * Sends one diagnostic to the engine and resolves when the engine has it (so it is shown with the step that caused
 * it); on any failure the message goes to stderr. Never rejects.
 */
export async function logToEngine(severity: Severity, message: string, urn = ""): Promise<void> {
  const address = engineAddress();
  if (address === undefined || unreachable) return toStderr(severity, message);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const enginePb = require("@pulumi/pulumi/proto/engine_pb") as typeof import("@pulumi/pulumi/proto/engine_pb");
    const request = new enginePb.LogRequest();
    request.setSeverity(severity === "warning" ? enginePb.LogSeverity.WARNING : enginePb.LogSeverity.INFO);
    request.setMessage(message);
    request.setUrn(urn);
    const engine = engineClient(address);
    await new Promise<void>((resolve, reject) => {
      const options = { deadline: Date.now() + LOG_DEADLINE_MS };
      engine.log(request, new (grpcModule().Metadata)(), options, (error) => (error ? reject(error) : resolve()));
    });
  } catch {
    unreachable = true;
    toStderr(severity, message);
  }
}
