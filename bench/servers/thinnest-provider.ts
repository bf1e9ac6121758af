/**
 * The thinnest possible provider behind Pulumi's ResourceProvider protocol, as the bench's yardstick: Configure keeps
 * the endpoint and token, Check echoes the news, Diff answers DIFF_SOME, Update sends one bare undici PATCH of the
 * description and echoes the news. No validation, no schema, no state shaping: what is left is the protocol and the
 * HTTP call. Prints its port on stdout like any plugin.
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { Pool } from "undici";

type Props = Record<string, unknown>;
const plain = (value: unknown): unknown =>
  typeof value === "object" && value !== null && "value" in value ? (value as { value: unknown }).value : value;

let pool: Pool | undefined;
let token = "";

function serve(): grpc.UntypedServiceImplementation {
  return {
    configure: (
      call: grpc.ServerUnaryCall<provproto.ConfigureRequest, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const args = (call.request.getArgs()?.toJavaScript() ?? {}) as Props;
      pool = new Pool(String(plain(args.endpoint)), { connections: 16 });
      token = String(plain(args.token));
      const response = new provproto.ConfigureResponse();
      response.setAcceptsecrets(true);
      callback(null, response);
    },
    check: (call: grpc.ServerUnaryCall<provproto.CheckRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const response = new provproto.CheckResponse();
      response.setInputs(call.request.getNews());
      callback(null, response);
    },
    diff: (_call: grpc.ServerUnaryCall<provproto.DiffRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const response = new provproto.DiffResponse();
      response.setChanges(provproto.DiffResponse.DiffChanges.DIFF_SOME);
      callback(null, response);
    },
    update: (call: grpc.ServerUnaryCall<provproto.UpdateRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const news = (call.request.getNews()?.toJavaScript() ?? {}) as Props;
      pool!
        .request({
          method: "PATCH",
          path: call.request.getId(),
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ description: news.description }),
        })
        .then(async (res) => {
          await res.body.dump();
          if (res.statusCode !== 200) throw new Error(`PATCH ${call.request.getId()} → ${res.statusCode}`);
          const response = new provproto.UpdateResponse();
          response.setProperties(Struct.fromJavaScript(news as Record<string, never>));
          callback(null, response);
        })
        .catch((error: unknown) => callback({ code: grpc.status.UNKNOWN, details: String(error) }, null));
    },
    cancel: (_call: unknown, callback: grpc.sendUnaryData<Empty>) => callback(null, new Empty()),
  };
}

const server = new grpc.Server();
server.addService(ResourceProviderService, serve());
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`${port}\n`);
});
