/**
 * `get<Type>` of every kind that declares a resource: one object by name (and gvc, for gvc-scoped kinds), as the API
 * returns it (`GET <self link>`). Derived from the declaration like the resource; a 404 is an error naming the
 * object.
 */
import { z } from "zod";
import type { KindDescriptor } from "../../api/kinds/types.js";
import { lazy } from "../../api/lazy.js";
import { selfLink } from "../../api/links.js";
import { connect, orgArg, parseArgs, type FunctionEnv } from "./common.js";

export interface DeclaredFunction {
  name: string;
  description: string;
  args(): z.ZodType;
  result(): z.ZodType;
  run(args: unknown, env?: FunctionEnv): Promise<unknown>;
}

function getFunction(descriptor: KindDescriptor, typeName: string): DeclaredFunction {
  const kind = descriptor.kind;
  const gvcScoped = descriptor.scope === "gvc";
  const name = `get${typeName}`;
  const args = lazy(() =>
    z
      .strictObject({
        name: z.string().min(1, "must not be empty").describe(`Name of the ${kind}.`),
        ...(gvcScoped ? { gvc: z.string().min(1, "must not be empty").describe(`Gvc of the ${kind}.`) } : {}),
        org: orgArg(),
      })
      .describe(`Arguments of ${name}.`),
  );
  const path = gvcScoped ? `/org/{org}/gvc/{gvc}/${kind}/{name}` : `/org/{org}/${kind}/{name}`;
  return {
    name,
    description: `One ${kind} by name (GET ${path}), as the API returns it.`,
    args,
    result: descriptor.schemas.record,
    async run(input, env = {}) {
      const parsed = parseArgs(name, args(), input) as { name: string; gvc?: string; org?: string };
      const { client, org } = connect(parsed.org, env);
      const link = selfLink(org, kind, parsed.name, parsed.gvc);
      const record = await client.getByLink(link);
      if (record === undefined) throw new Error(`GET ${link}: no such ${kind} (404)`);
      return record;
    },
  };
}

/** The functions of every kind that declares a resource, by function name. */
export function declaredFunctions(descriptors: Iterable<KindDescriptor>): Record<string, DeclaredFunction> {
  const out: Record<string, DeclaredFunction> = {};
  for (const descriptor of descriptors) {
    if (descriptor.resource === undefined) continue;
    const fn = getFunction(descriptor, descriptor.resource.typeName);
    out[fn.name] = fn;
  }
  return out;
}
