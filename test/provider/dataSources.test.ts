// Every data source a kind's declaration names (`dataSources`, and get<Type> of a declared resource), against a
// seeded cpln-local, from the registry alone: a `get` answers exactly the object the API returns, a `list` exactly the
// collection's items; an unknown argument is refused naming it before any request. Needs `npm run build`.
import { describe, expect, it } from "vitest";
import { load, serverRecord, withEnv, type Env } from "./support.js";
import type * as KindsModule from "../../api/kinds/index.js";
import type * as DeclaredFunctionsModule from "../../provider/functions/declared.js";
import type * as LinksModule from "../../api/links.js";

const { kinds } = load("../../dist/api/kinds/index.js") as typeof KindsModule;
const { collectionPath, selfLink } = load("../../dist/api/links.js") as typeof LinksModule;
const { declaredFunctions } = load("../../dist/provider/functions/declared.js") as typeof DeclaredFunctionsModule;
const { FunctionArgsError } = load("../../dist/provider/functions/errors.js") as {
  FunctionArgsError: new (...args: never[]) => Error;
};

/** Each declared function with the kind it reads and whether it reads one object or a collection. */
const declared = Object.values(kinds).flatMap((descriptor) =>
  Object.entries(declaredFunctions([descriptor])).map(([name, fn]) => ({
    name,
    fn,
    descriptor,
    one: !(descriptor.dataSources?.list === name),
  })),
);

let env: Env;
withEnv(
  {
    records: [{ kind: "cloudaccount", name: "aws-prod", provider: "aws", data: { roleArn: "arn:aws:iam::1:role/p" } }],
  },
  (started) => {
    env = started;
  },
);

const functionEnv = () => {
  const settings: Record<string, string> = {
    "cpln:org": env.server.org,
    "cpln:endpoint": env.server.url,
    "cpln:token": env.server.adminKey,
  };
  return { stackConfig: { get: (key: string) => settings[key] } };
};

it("the declarations name data sources", () => {
  expect(declared.map((d) => d.name)).toEqual(
    expect.arrayContaining(["getOrg", "getLocations", "getCloudAccount", "getGvc", "getImage", "getImages"]),
  );
});

describe.each(declared)("$name", ({ fn, descriptor, one }) => {
  const kind = descriptor.kind;
  const gvc = descriptor.scope === "gvc" ? { gvc: "default" } : {};

  it(one ? "answers the object exactly as the API returns it" : "answers the collection's items exactly", async () => {
    const org = env.server.org;
    const collection = descriptor.singleton
      ? []
      : ((await env.client.listByLink(collectionPath(org, kind, gvc.gvc))) as { name: string }[]);
    if (one && !descriptor.singleton && collection.length === 0) {
      // Nothing seeded of this kind: one object made from the declaration's example, or, for a kind the API never
      // creates (images come from a push), by cpln-local's stand-in for that.
      const create = descriptor.examples.create;
      if (create !== undefined) {
        collection.push(await env.client.createByLink(collectionPath(org, kind, gvc.gvc), create(`read-${kind}`)));
      } else {
        const pushed = await fetch(`${env.server.url}/_cpln-local/org/${org}/${kind}`, {
          method: "POST",
          headers: { authorization: `Bearer ${env.server.adminKey}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "read:v1" }),
        });
        expect(pushed.status, `cpln-local makes a ${kind}`).toBe(201);
        collection.push(...(await env.client.listByLink(collectionPath(org, kind, gvc.gvc))));
      }
    }
    if (one) {
      const target = descriptor.singleton ? undefined : collection[0]?.name;
      if (!descriptor.singleton) expect(target, `a seeded ${kind} to read`).toBeDefined();
      const link = descriptor.singleton ? `/org/${org}` : selfLink(org, kind, target!, gvc.gvc);
      const args = descriptor.singleton ? {} : { name: target, ...gvc };
      // A kind with reveal-only fields (a secret's data) is read through -reveal, those fields included.
      const reveals = fn.secretResultFields !== undefined;
      const expected = reveals ? await env.client.getByLink(`${link}/-reveal`) : await serverRecord(env, link);
      if (reveals) for (const field of descriptor.revealOnly ?? []) expect(expected, field).toHaveProperty(field);
      expect(await fn.run(args, functionEnv())).toEqual(expected);
    } else {
      expect(await fn.run({ ...gvc }, functionEnv())).toEqual({ org, items: collection });
    }
  });

  it("refuses an unknown argument, naming it", async () => {
    await expect(fn.run({ ...gvc, nope: 1 }, functionEnv())).rejects.toBeInstanceOf(FunctionArgsError);
    await expect(fn.run({ ...gvc, nope: 1 }, functionEnv())).rejects.toThrow(/nope/);
  });
});
