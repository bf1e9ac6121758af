/**
 * The native provider's resource operations: Check, Diff, Create, Read, Update and Delete of any type in the registry
 * (`resources` of `provider/index.ts`), each dispatched to `runtime.ts` like the dynamic provider's. What is native:
 * secrets unwrapped on the way in and re-wrapped on the way out (the type's secret outputs always secret), `preview`
 * honoured, Read with only an id (`pulumi import`: a self link or the Terraform short forms), and the old
 * `__provider` input carried over so that a stack moved from the dynamic classes diffs clean.
 */
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { parseLink, selfLink } from "../../api/links.js";
import { ConfigError, resolveOrg, type StackConfig } from "../config.js";
import { resources } from "../index.js";
import { LOGICAL_NAME } from "../resources/lifecycle.js";
import type { AnyResourceDefinition, ResourceTypeName } from "../resources/types.js";
import * as runtime from "../runtime.js";
import { diffResponse } from "./detailedDiff.js";
import { NATIVE_PACKAGE, tokenMember } from "./identity.js";
import { rewrap, toStruct, unwrapProps, type Props } from "./values.js";
import { PropsResponse, RESPONSE_PROPS_FIELDS, type PropsRequest } from "./wire.js";

const PROVIDER_KEY = "__provider";

/** What the operations need of the provider: its config as the core reads it, and how it scrubs a message. */
export interface ProviderView {
  readonly stackConfig: StackConfig;
  scrub(text: string): string;
}

export class ResourceOperations {
  constructor(private readonly provider: ProviderView) {}

  private definition(urn: string, type: string): { typeName: ResourceTypeName; def: AnyResourceDefinition } {
    const token = type !== "" ? type : typeOfUrn(urn);
    const member = tokenMember(token);
    const registry: Record<string, AnyResourceDefinition> = resources;
    const def = member === undefined ? undefined : registry[member];
    if (member === undefined || def === undefined) {
      throw new Error(`${NATIVE_PACKAGE}: unknown resource type "${token}"`);
    }
    return { typeName: member as ResourceTypeName, def };
  }

  async check(request: PropsRequest): Promise<PropsResponse<provproto.CheckResponse>> {
    const { typeName, def } = this.definition(request.urn, request.type);
    const olds = readable(request).olds.props;
    const { props: news, secretKeys } = request.news;
    if (news[LOGICAL_NAME] === undefined) news[LOGICAL_NAME] = request.name || nameOfUrn(request.urn);
    const outcome = await runtime.check(typeName, olds, news, request.urn);
    const inputs: Props = { ...outcome.inputs };
    // A stack moved from the dynamic classes keeps its `__provider` input, so the inputs it stores do not change.
    if (typeof olds[PROVIDER_KEY] === "string") inputs[PROVIDER_KEY] = olds[PROVIDER_KEY];
    const response = new provproto.CheckResponse();
    for (const { property, reason } of outcome.failures) {
      const failure = new provproto.CheckFailure();
      failure.setProperty(property);
      failure.setReason(this.provider.scrub(reason));
      response.addFailures(failure);
    }
    // The type's secret fields are secret inputs too: an SDK generated from schema.json (Python, Go, YAML) marks them
    // secret only as outputs, and the engine stores the inputs Check returns (Secret.data was plaintext in state).
    return new PropsResponse(response, RESPONSE_PROPS_FIELDS.check, rewrap(inputs, withSecretOutputs(def, secretKeys)));
  }

  async diff(request: PropsRequest): Promise<provproto.DiffResponse> {
    const { def } = this.definition(request.urn, request.type);
    return diffResponse(def, readable(request).olds.props, request.news.props);
  }

  async create(request: PropsRequest): Promise<PropsResponse<provproto.CreateResponse>> {
    const { typeName, def } = this.definition(request.urn, request.type);
    const { props: inputs, secretKeys } = readable(request).properties;
    const response = new provproto.CreateResponse();
    const field = RESPONSE_PROPS_FIELDS.create;
    if (request.preview) return new PropsResponse(response, field, rewrap(withoutProvider(inputs), secretKeys));
    const { id, outs } = await runtime.create(typeName, inputs);
    response.setId(id);
    return new PropsResponse(response, field, rewrap(outs, withSecretOutputs(def, secretKeys)));
  }

  /**
   * A self link, or a Terraform import id in the configured org: the definition's own form (`importId`, tried first:
   * a domain route's `/org/o/domain/d:443:/` reads as a link too), else `gvc:name` for gvc-scoped kinds and `name`
   * otherwise.
   */
  private resolveId(def: AnyResourceDefinition, id: string): string {
    const configured = resolveOrg({ stackConfig: this.provider.stackConfig });
    const own = configured === undefined ? undefined : def.importId?.resolve(configured, id);
    if (own !== undefined) return own;
    if (parseLink(id) !== undefined) return id;
    const org = configured;
    if (org === undefined) {
      throw new ConfigError(
        `cannot resolve the import id "${id}": no org is configured (${NATIVE_PACKAGE}:org or CPLN_ORG)`,
      );
    }
    if (def.importId !== undefined) {
      throw new Error(`${def.typeName}: "${id}" is not an id of this resource: use its id or "${def.importId.form}"`);
    }
    const parts = id.split(":");
    const scoped = parts.length === 2 && parts.every((part) => part !== "");
    try {
      if (scoped) return selfLink(org, def.kind, parts[1] as string, parts[0]);
      if (parts.length === 1 && id !== "") return selfLink(org, def.kind, id);
    } catch {
      // selfLink refuses a gvc-scoped kind without a gvc: reported below with the forms that work.
    }
    throw new Error(
      `${def.typeName}: "${id}" is not an id of this resource: use its self link or ` +
        `${scoped ? "the name alone" : '"<gvc>:<name>" (or the name alone for org-level kinds)'}`,
    );
  }

  async read(request: provproto.ReadRequest): Promise<provproto.ReadResponse> {
    const { typeName, def } = this.definition(request.getUrn(), request.getType());
    const { props, secretKeys } = unwrapProps(request.getProperties());
    const inputSecrets = unwrapProps(request.getInputs()).secretKeys;
    const id = this.resolveId(def, request.getId());
    const result = await runtime.read(typeName, id, props);
    const response = new provproto.ReadResponse();
    if (result.id === "" || result.props === undefined) return response;
    const secrets = withSecretOutputs(def, new Set([...secretKeys, ...inputSecrets]));
    response.setId(result.id);
    response.setProperties(toStruct(rewrap(result.props, secrets)));
    response.setInputs(toStruct(rewrap(result.inputs ?? {}, secrets)));
    return response;
  }

  async update(request: PropsRequest): Promise<PropsResponse<provproto.UpdateResponse>> {
    const { typeName, def } = this.definition(request.urn, request.type);
    const olds = readable(request).olds.props;
    const { props: news, secretKeys } = request.news;
    const response = new provproto.UpdateResponse();
    const field = RESPONSE_PROPS_FIELDS.update;
    if (request.preview) {
      return new PropsResponse(
        response,
        field,
        rewrap({ ...withoutProvider(olds), ...withoutProvider(news) }, secretKeys),
      );
    }
    const { outs } = await runtime.update(typeName, request.id, olds, news);
    return new PropsResponse(response, field, rewrap(outs, withSecretOutputs(def, secretKeys)));
  }

  async delete(request: PropsRequest): Promise<Empty> {
    const { typeName } = this.definition(request.urn, request.type);
    await runtime.delete(typeName, request.id, readable(request).properties.props);
    return new Empty();
  }
}

/**
 * The keys to wrap as secrets in a response: the request's secret keys and the outputs the type declares secret
 * (`secretOutputs`), so that they are secret in the engine's state whatever options the program registered with.
 */
function withSecretOutputs(def: AnyResourceDefinition, keys: Iterable<string>): Set<string> {
  return new Set([...keys, ...(def.secretOutputs ?? [])]);
}

/** The request, once its property bags are known to read as `unwrapProps` reads them (which throws for a kindless Value). */
function readable(request: PropsRequest): PropsRequest {
  if (request.failure !== undefined) throw new Error(request.failure);
  return request;
}

function withoutProvider(props: Props): Props {
  const { [PROVIDER_KEY]: _provider, ...rest } = props;
  return rest;
}

/** `urn:pulumi:<stack>::<project>::<parent types $ type>::<name>` → the resource's own type. */
function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  const types = parts[2] ?? "";
  return types.split("$").pop() ?? "";
}

function nameOfUrn(urn: string): string {
  return urn.split("::").slice(3).join("::");
}
