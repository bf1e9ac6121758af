/**
 * Data-source functions, each as `getX(args, opts?) → Promise` and `getXOutput(args, opts?) → Output`.
 *
 * Dynamic providers have no Invoke, so these are plain functions that run in the program process, during preview
 * and update alike. They read `cpln:org`, `cpln:endpoint` and `cpln:token` from the stack config, then
 * `CPLN_ORG`, `CPLN_ENDPOINT`, `CPLN_TOKEN`; every function also takes an `org` argument.
 *
 * The Output forms wait for their arguments (and `dependsOn`): while any is unknown during preview, so is the result.
 */
import * as pulumi from "@pulumi/pulumi";
import type { StackConfig } from "../provider/config.js";
import { FunctionArgsError } from "../provider/functions/errors.js";
import { describeFailure, settingSources } from "../provider/functions/failure.js";
import * as functions from "../provider/functions/index.js";
import type { FunctionEnv } from "../provider/functions/index.js";
import { declaredFunctions, type DeclaredFunction } from "../provider/functions/declared.js";
import { kinds } from "../api/kinds/index.js";
import type {
  GetCloudAccountPermissionsArgs,
  GetCloudAccountPermissionsResult,
  GetGroupAccessReportArgs,
  GetGroupAccessReportResult,
  GetGroupsArgs,
  GetGroupsResult,
  GetLocationArgs,
  GetLocationResult,
  GetMk8sJoinScriptArgs,
  GetMk8sJoinScriptResult,
  GetPolicyArgs,
  GetPolicyResult,
  GetQuotaArgs,
  GetQuotaResult,
  GetQuotasArgs,
  GetQuotasResult,
  GetServiceAccountsArgs,
  GetServiceAccountsResult,
  QueryCloudAccountsArgs,
  QueryCloudAccountsResult,
} from "./types.js";

export type {
  GetCloudAccountPermissionsArgs,
  GetCloudAccountPermissionsResult,
  GetGroupAccessReportArgs,
  GetGroupAccessReportResult,
  GetGroupsArgs,
  GetGroupsResult,
  GetLocationArgs,
  GetLocationResult,
  GetMk8sJoinScriptArgs,
  GetMk8sJoinScriptResult,
  GetPolicyArgs,
  GetPolicyResult,
  GetQuotaArgs,
  GetQuotaResult,
  GetQuotasArgs,
  GetQuotasResult,
  GetServiceAccountsArgs,
  GetServiceAccountsResult,
  QueryCloudAccountsArgs,
  QueryCloudAccountsResult,
};
export { FunctionArgsError };

/** The arguments of an Output form: each field may be an Input. */
export type InputArgs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/**
 * The stack's `cpln:*` config, read when a function is called. The token is read with `get`, not `getSecret`: the
 * request needs the plain value, it is only ever put in the Authorization header, and no result carries it.
 */
function stackConfig(): StackConfig {
  const config = new pulumi.Config("cpln");
  return { get: (key) => (key.startsWith("cpln:") ? config.get(key.slice("cpln:".length)) : undefined) };
}

function env(): FunctionEnv {
  return { stackConfig: stackConfig() };
}

/**
 * Runs a function; a failure (a refused token, an unknown org, an unreachable endpoint, a missing setting) becomes one line (provider/functions/failure.ts) thrown as a `pulumi.RunError`, which
 * the Node SDK prints without a stack.
 */
async function called<R>(
  name: string,
  args: { org?: unknown } | undefined,
  call: (env: FunctionEnv) => Promise<R>,
): Promise<R> {
  const functionEnv = env();
  try {
    return await call(functionEnv);
  } catch (error) {
    // Exported, so a program may catch it by class: it stays as it is (its message is one line already).
    if (error instanceof FunctionArgsError) throw error;
    const org = typeof args?.org === "string" ? args.org : undefined;
    throw new pulumi.RunError(describeFailure(name, error, settingSources(org, functionEnv.stackConfig)));
  }
}

/** `pulumi.output(args).apply(fetch)`, after `dependsOn` (resources' ids, or urns for components) are known. */
function outputForm<A, R>(
  args: InputArgs<A> | undefined,
  opts: pulumi.InvokeOutputOptions | undefined,
  fetch: (args: A) => Promise<R>,
): pulumi.Output<R> {
  const dependencies = pulumi
    .output(opts?.dependsOn ?? [])
    .apply((value) => (Array.isArray(value) ? value : [value]))
    .apply((resources: pulumi.Resource[]) =>
      pulumi.all(resources.map((r) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn))),
    );
  return pulumi.all([pulumi.output(args ?? {}), dependencies]).apply(([unwrapped]) => fetch(unwrapped as unknown as A));
}

// ---- the get<Type> of every kind that declares a resource (called from the generated sdk/declared.ts) ----

let declaredRuns: Record<string, DeclaredFunction> | undefined;

/** The declared function of that name (the registry's functions built once, on first use). */
function declaredFunction(name: string): DeclaredFunction {
  declaredRuns ??= declaredFunctions(Object.values(kinds));
  const fn = declaredRuns[name];
  if (fn === undefined) throw new Error(`${name}: no kind declares this function`);
  return fn;
}

/** Runs `get<Type>` of a declared kind. */
export function invokeDeclared<R>(name: string, args: { org?: unknown }): Promise<R> {
  const fn = declaredFunction(name);
  return called(name, args, (e) => fn.run(args, e) as Promise<R>);
}

/** The Output form of `invokeDeclared`. */
export function invokeDeclaredOutput<A extends { org?: unknown }, R>(
  name: string,
  args: InputArgs<A>,
  opts: pulumi.InvokeOutputOptions | undefined,
): pulumi.Output<R> {
  const output = outputForm(args, opts, (a: A) => invokeDeclared<R>(name, a));
  // A result with secret fields (a secret's data) is secret as a whole: an Output's secrecy is not per field.
  return (declaredFunction(name).secretResultFields?.length ?? 0) > 0
    ? (pulumi.secret(output) as pulumi.Output<R>)
    : output;
}

// ---- quotas ----

/** Every quota of the org (`GET /org/{org}/quota`). */
export function getQuotas(args?: GetQuotasArgs, _opts?: pulumi.InvokeOptions): Promise<GetQuotasResult> {
  return called("getQuotas", args, (e) => functions.getQuotas(args, e));
}
export function getQuotasOutput(
  args?: InputArgs<GetQuotasArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetQuotasResult> {
  return outputForm(args, opts, (a: GetQuotasArgs) => getQuotas(a, opts));
}

/** One quota by id (UUID) (`GET /org/{org}/quota/{id}`). */
export function getQuota(args: GetQuotaArgs, _opts?: pulumi.InvokeOptions): Promise<GetQuotaResult> {
  return called("getQuota", args, (e) => functions.getQuota(args, e));
}
export function getQuotaOutput(
  args: InputArgs<GetQuotaArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetQuotaResult> {
  return outputForm(args, opts, (a: GetQuotaArgs) => getQuota(a, opts));
}

// ---- cloud accounts ----

/** The cloud-account permission catalog (`GET /org/{org}/cloudaccount/-schema/permissions`). */
export function getCloudAccountPermissions(
  args?: GetCloudAccountPermissionsArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetCloudAccountPermissionsResult> {
  return called("getCloudAccountPermissions", args, (e) => functions.getCloudAccountPermissions(args, e));
}
export function getCloudAccountPermissionsOutput(
  args?: InputArgs<GetCloudAccountPermissionsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetCloudAccountPermissionsResult> {
  return outputForm(args, opts, (a: GetCloudAccountPermissionsArgs) => getCloudAccountPermissions(a, opts));
}

/** Cloud accounts matching a query (`POST /org/{org}/cloudaccount/-query`). */
export function queryCloudAccounts(
  args?: QueryCloudAccountsArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<QueryCloudAccountsResult> {
  return called("queryCloudAccounts", args, (e) => functions.queryCloudAccounts(args, e));
}
export function queryCloudAccountsOutput(
  args?: InputArgs<QueryCloudAccountsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<QueryCloudAccountsResult> {
  return outputForm(args, opts, (a: QueryCloudAccountsArgs) => queryCloudAccounts(a, opts));
}

// ---- principals ----

/** The org's service accounts (`GET /org/{org}/serviceaccount`). */
export function getServiceAccounts(
  args?: GetServiceAccountsArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetServiceAccountsResult> {
  return called("getServiceAccounts", args, (e) => functions.getServiceAccounts(args, e));
}
export function getServiceAccountsOutput(
  args?: InputArgs<GetServiceAccountsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetServiceAccountsResult> {
  return outputForm(args, opts, (a: GetServiceAccountsArgs) => getServiceAccounts(a, opts));
}

/** The org's groups (`GET /org/{org}/group`). */
export function getGroups(args?: GetGroupsArgs, _opts?: pulumi.InvokeOptions): Promise<GetGroupsResult> {
  return called("getGroups", args, (e) => functions.getGroups(args, e));
}
export function getGroupsOutput(
  args?: InputArgs<GetGroupsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGroupsResult> {
  return outputForm(args, opts, (a: GetGroupsArgs) => getGroups(a, opts));
}

/** Who may act on a group (`GET /org/{org}/group/{name}/-accessreport`). */
export function getGroupAccessReport(
  args: GetGroupAccessReportArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetGroupAccessReportResult> {
  return called("getGroupAccessReport", args, (e) => functions.getGroupAccessReport(args, e));
}
export function getGroupAccessReportOutput(
  args: InputArgs<GetGroupAccessReportArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetGroupAccessReportResult> {
  return outputForm(args, opts, (a: GetGroupAccessReportArgs) => getGroupAccessReport(a, opts));
}

// ---- policies, locations ----

/** A policy by name (`GET /org/{org}/policy/{name}`). */
export function getPolicy(args: GetPolicyArgs, _opts?: pulumi.InvokeOptions): Promise<GetPolicyResult> {
  return called("getPolicy", args, (e) => functions.getPolicy(args, e));
}
export function getPolicyOutput(
  args: InputArgs<GetPolicyArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetPolicyResult> {
  return outputForm(args, opts, (a: GetPolicyArgs) => getPolicy(a, opts));
}

/** A location by name (`GET /org/{org}/location/{name}`). */
export function getLocation(args: GetLocationArgs, _opts?: pulumi.InvokeOptions): Promise<GetLocationResult> {
  return called("getLocation", args, (e) => functions.getLocation(args, e));
}
export function getLocationOutput(
  args: InputArgs<GetLocationArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetLocationResult> {
  return outputForm(args, opts, (a: GetLocationArgs) => getLocation(a, opts));
}

// ---- mk8s ----

/**
 * A script that joins a node to a generic or hetzner mk8s cluster (`POST /org/{org}/mk8s/{name}/-join`).
 *
 * **The script embeds a bootstrap token.** A Promise cannot carry Pulumi's secret marking: do not log the result,
 * export it, or pass it to a resource input unless you wrap it with `pulumi.secret(...)`. Prefer
 * `getMk8sJoinScriptOutput`, whose result is secret.
 */
export function getMk8sJoinScript(
  args: GetMk8sJoinScriptArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetMk8sJoinScriptResult> {
  // The public type allows an explicitly undefined option; the function's zod schema validates the value at run time.
  return called("getMk8sJoinScript", args, (e) =>
    functions.getMk8sJoinScript(args as Parameters<typeof functions.getMk8sJoinScript>[0], e),
  );
}
/** The join script as a secret Output (the whole result is secret). */
export function getMk8sJoinScriptOutput(
  args: InputArgs<GetMk8sJoinScriptArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetMk8sJoinScriptResult> {
  return pulumi.secret(outputForm(args, opts, (a: GetMk8sJoinScriptArgs) => getMk8sJoinScript(a, opts)));
}
