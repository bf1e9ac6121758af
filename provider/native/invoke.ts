/**
 * Invoke: a data-source function of the registry (`functions` of `provider/index.ts`) by its token
 * (`cpln-native:index:<name>`), run by the same implementation as the SDK's `getX`. Bad arguments are check failures,
 * not errors; secret results (and every result when an argument was secret) go back as secrets.
 */
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { StackConfig } from "../config.js";
import * as functionImpls from "../functions/index.js";
import { FunctionArgsError } from "../functions/index.js";
import { declaredFunctionsByName, functions, type FunctionDefinition } from "../index.js";
import { NATIVE_PACKAGE, tokenMember } from "./identity.js";
import { rewrap, toStruct, unwrapProps, type Props } from "./values.js";

export async function invoke(
  request: provproto.InvokeRequest,
  stackConfig: StackConfig,
): Promise<provproto.InvokeResponse> {
  const name = tokenMember(request.getTok());
  const registry: Record<string, FunctionDefinition> = functions;
  const entry = name === undefined ? undefined : registry[name];
  const impl =
    name === undefined
      ? undefined
      : (declaredFunctionsByName[name]?.run ?? (functionImpls as Record<string, unknown>)[name]);
  if (name === undefined || entry === undefined || typeof impl !== "function") {
    throw new Error(`${NATIVE_PACKAGE}: unknown function "${request.getTok()}"`);
  }
  const { props: args, secretKeys } = unwrapProps(request.getArgs());
  const response = new provproto.InvokeResponse();
  let result: Props;
  try {
    const run = impl as (args: unknown, env: functionImpls.FunctionEnv) => Promise<unknown>;
    result = JSON.parse(JSON.stringify(await run(args, { stackConfig }))) as Props;
  } catch (error) {
    if (!(error instanceof FunctionArgsError)) throw error;
    for (const issue of error.issues) {
      const failure = new provproto.CheckFailure();
      failure.setProperty(issue.path);
      failure.setReason(issue.message);
      response.addFailures(failure);
    }
    return response;
  }
  // Secret results, and everything when an argument was secret.
  const secretFields = secretKeys.size > 0 ? Object.keys(result) : (entry.secretResultFields ?? []);
  response.setReturn(toStruct(rewrap(result, secretFields)));
  return response;
}
