/**
 * The thinnest possible provider behind Pulumi's ResourceProvider protocol, as the bench's yardstick: Configure keeps
 * the endpoint and token, Check echoes the news, Diff compares olds and news (DIFF_NONE when equal, else DIFF_SOME),
 * Create sends one bare undici POST of the inputs (less `collection`) to `collection`, Update one PATCH of the
 * top-level keys that changed, Delete one DELETE; outputs are the inputs. No validation, no schema, no state shaping:
 * what is left is the protocol and the HTTP call. GetPluginInfo answers 0.1.0. Prints its port on stdout like any plugin, so the engine can start
 * it as `pulumi-resource-thin` (bench/engine.ts) and the bench can spawn it directly (bench/native.ts).
 */
import { isDeepStrictEqual } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as pluginproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { Pool } from "undici";

type Props = Record<string, unknown>;
const plain = (value: unknown): unknown =>
  typeof value === "object" && value !== null && "value" in value ? (value as { value: unknown }).value : value;

let pool: Pool | undefined;
let token = "";

/** One request; resolves when the answer is 2xx, else rejects naming the status. */
async function send(method: "POST" | "PATCH" | "DELETE", path: string, body?: Props): Promise<void> {
  const res = await pool!.request({
    method,
    path,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${method} ${path} → ${res.statusCode}`);
}

const failed = (callback: grpc.sendUnaryData<unknown>) => (error: unknown) =>
  callback({ code: grpc.status.UNKNOWN, details: String(error) }, null);

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
    diff: (call: grpc.ServerUnaryCall<provproto.DiffRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const same = isDeepStrictEqual(call.request.getOlds()?.toJavaScript(), call.request.getNews()?.toJavaScript());
      const response = new provproto.DiffResponse();
      response.setChanges(
        same ? provproto.DiffResponse.DiffChanges.DIFF_NONE : provproto.DiffResponse.DiffChanges.DIFF_SOME,
      );
      callback(null, response);
    },
    create: (call: grpc.ServerUnaryCall<provproto.CreateRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const inputs = (call.request.getProperties()?.toJavaScript() ?? {}) as Props;
      const { collection, ...body } = inputs;
      const id = `${String(collection)}/${String(body.name)}`;
      send("POST", String(collection), body).then(() => {
        const response = new provproto.CreateResponse();
        response.setId(id);
        response.setProperties(call.request.getProperties());
        callback(null, response);
      }, failed(callback));
    },
    update: (call: grpc.ServerUnaryCall<provproto.UpdateRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const olds = (call.request.getOlds()?.toJavaScript() ?? {}) as Props;
      const news = (call.request.getNews()?.toJavaScript() ?? {}) as Props;
      const changed: Props = {};
      for (const [key, value] of Object.entries(news)) {
        if (key !== "collection" && !isDeepStrictEqual(olds[key], value)) changed[key] = value;
      }
      send("PATCH", call.request.getId(), changed).then(() => {
        const response = new provproto.UpdateResponse();
        response.setProperties(Struct.fromJavaScript(news as Record<string, never>));
        callback(null, response);
      }, failed(callback));
    },
    delete: (call: grpc.ServerUnaryCall<provproto.DeleteRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      send("DELETE", call.request.getId()).then(() => callback(null, new Empty()), failed(callback));
    },
    // The engine asks every provider it starts for its version (an error there fails the provider).
    getPluginInfo: (_call: unknown, callback: grpc.sendUnaryData<pluginproto.PluginInfo>) => {
      const info = new pluginproto.PluginInfo();
      info.setVersion("0.1.0");
      callback(null, info);
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
