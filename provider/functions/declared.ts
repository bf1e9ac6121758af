/**
 * The data-source functions a kind's declaration names (`dataSources`, and `get<Type>` of a declared resource): `get`
 * reads one object by name (the org itself for the singleton kind), `list` every object of a collection, all pages,
 * each as the API returns it. Nothing here names a kind; a 404 is an error naming the object.
 */
import { z } from "zod";
import { revealEndpointOf, type KindDescriptor } from "../../api/kinds/index.js";
import { lazy } from "../../api/lazy.js";
import { collectionPath, selfLink } from "../../api/links.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

export interface DeclaredFunction {
  name: string;
  description: string;
  args(): z.ZodType;
  result(): z.ZodType;
  run(args: unknown, env?: FunctionEnv): Promise<unknown>;
  /** Result fields that are secrets (reveal-only fields read through `-reveal`). */
  secretResultFields?: readonly string[];
}

interface Located {
  name?: string;
  gvc?: string;
  org?: string;
}

function nameArgs(descriptor: KindDescriptor, name: string, one: boolean) {
  const kind = descriptor.kind;
  return lazy(() =>
    z
      .strictObject({
        ...(one && !descriptor.singleton
          ? { name: z.string().min(1, "must not be empty").describe(`Name of the ${kind}.`) }
          : {}),
        ...(descriptor.scope === "gvc"
          ? { gvc: z.string().min(1, "must not be empty").describe(`Gvc of the ${kind}.`) }
          : {}),
        org: orgArg(),
      })
      .describe(`Arguments of ${name}.`),
  );
}

function getFunction(descriptor: KindDescriptor, name: string): DeclaredFunction {
  const kind = descriptor.kind;
  const args = nameArgs(descriptor, name, true);
  const path = descriptor.singleton
    ? "/org/{org}"
    : descriptor.scope === "gvc"
      ? `/org/{org}/gvc/{gvc}/${kind}/{name}`
      : `/org/{org}/${kind}/{name}`;
  // A kind whose fields are returned only by `-reveal` (a secret's data) is read there, as @pulumiverse/cpln's
  // getSecret returns the values (terraform-provider-cpln v1.2.31 reads every secret through -reveal).
  const revealOnly = descriptor.revealOnly ?? [];
  const reveal = revealEndpointOf(descriptor);
  const shown = revealOnly.join(", ");
  return {
    name,
    description:
      reveal === undefined
        ? `One ${kind} ${descriptor.singleton ? "" : "by name "}(GET ${path}), as the API returns it.`
        : `One ${kind} by name with its ${shown} (GET ${path}/-reveal, which needs \`reveal\` on it), as the API ` +
          `returns it; ${shown} is a secret.`,
    args,
    result: reveal?.response?.schema ?? descriptor.schemas.record,
    ...(reveal !== undefined ? { secretResultFields: revealOnly } : {}),
    async run(input, env = {}) {
      const parsed = parseArgs(name, args(), input) as Located;
      const { client, org } = connect(parsed.org, env);
      const link = descriptor.singleton ? `/org/${org}` : selfLink(org, kind, parsed.name ?? "", parsed.gvc);
      const record = await client.getByLink(reveal === undefined ? link : `${link}/-reveal`);
      if (record === undefined) throw new Error(`GET ${link}: no such ${kind} (404)`);
      return record;
    },
  };
}

function listFunction(descriptor: KindDescriptor, name: string): DeclaredFunction {
  const kind = descriptor.kind;
  const args = nameArgs(descriptor, name, false);
  const path = descriptor.scope === "gvc" ? `/org/{org}/gvc/{gvc}/${kind}` : `/org/{org}/${kind}`;
  return {
    name,
    description: `Every ${kind} the caller may view (GET ${path}), all pages.`,
    args,
    result: lazy(() =>
      z.object({
        org: z.string().describe("The org that was read."),
        items: z.array(descriptor.schemas.record()).describe(`The ${kind} objects, as the API returns them.`),
      }),
    ),
    async run(input, env = {}) {
      const parsed = parseArgs(name, args(), input) as Located;
      const { client, org } = connect(parsed.org, env);
      return { org, items: await client.listByLink(collectionPath(org, kind, parsed.gvc)) };
    },
  };
}

/** The functions the declarations name, by function name. */
export function declaredFunctions(descriptors: Iterable<KindDescriptor>): Record<string, DeclaredFunction> {
  const out: Record<string, DeclaredFunction> = {};
  for (const descriptor of descriptors) {
    const get = descriptor.dataSources?.get ?? (descriptor.resource ? `get${descriptor.resource.typeName}` : undefined);
    const list = descriptor.dataSources?.list;
    for (const fn of [
      ...(get !== undefined ? [getFunction(descriptor, get)] : []),
      ...(list !== undefined ? [listFunction(descriptor, list)] : []),
    ]) {
      if (out[fn.name] !== undefined) throw new Error(`two declarations name the function ${fn.name}`);
      out[fn.name] = fn;
    }
  }
  return out;
}
