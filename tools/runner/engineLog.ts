// The engine's `Engine.Log` service for the provider processes the runner starts: the Pulumi engine passes its own
// address to every provider as the last argument, and a provider logs diagnostics there (provider/engineLog.ts). The
// runner serves the one method the providers call, `Log`, on 127.0.0.1, and hands each message to the MiniEngine,
// which shows it with the step it belongs to (by its URN, else the step whose provider call is running).
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { EngineService } from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as enginePb from "@pulumi/pulumi/proto/engine_pb";

/** One message a provider logged. */
export interface Diagnostic {
  severity: "debug" | "info" | "warning" | "error";
  message: string;
  /** The resource it is about; empty when the provider did not say (the dynamic-provider host never knows). */
  urn: string;
}

const severities: Record<number, Diagnostic["severity"]> = {
  [enginePb.LogSeverity.DEBUG]: "debug",
  [enginePb.LogSeverity.INFO]: "info",
  [enginePb.LogSeverity.WARNING]: "warning",
  [enginePb.LogSeverity.ERROR]: "error",
};

export class EngineLogServer {
  private constructor(
    private readonly server: grpc.Server,
    readonly address: string,
  ) {}

  /** Listens on 127.0.0.1 (a free port) and calls `onLog` with each message, before answering the provider. */
  static async start(onLog: (diagnostic: Diagnostic) => void): Promise<EngineLogServer> {
    const server = new grpc.Server();
    // Only `Log`: grpc-js answers UNIMPLEMENTED for the methods not given.
    server.addService(EngineService, {
      log: (call: grpc.ServerUnaryCall<enginePb.LogRequest, Empty>, callback: grpc.sendUnaryData<Empty>) => {
        const request = call.request;
        onLog({
          severity: severities[request.getSeverity()] ?? "info",
          message: request.getMessage(),
          urn: request.getUrn(),
        });
        callback(null, new Empty());
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    return new EngineLogServer(server, `127.0.0.1:${port}`);
  }

  /** Stops at once (a provider still logging gets an error and falls back to stderr). */
  stop(): void {
    this.server.forceShutdown();
  }
}
