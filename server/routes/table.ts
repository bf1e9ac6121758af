/**
 * The route table of the kinds: the operation templates (operations.ts) applied to each kind's declaration
 * (`api/kinds/`). A kind's place in the API (its collection, its item path, how a request names its object) and the
 * body schemas its operations share are worked out once here; which operations it has follows from its declaration.
 */
import type { FastifyRequest } from "fastify";
import { kindNames, kinds, type Kind } from "../../api/kinds/index.js";
import { listResponse } from "../../api/schemas/common.js";
import type { RecordService } from "../domain/records.js";
import { orgLinkRule } from "../domain/orgLinks.js";
import { revealOnlyBodyFields } from "../domain/present.js";
import { keyedPutBodyOf, kindPinned, manifestOf, patchBodyOf, putBodyOf } from "./bodies.js";
import { actionRoutes, endpointRoutes } from "./kindEndpoints.js";
import {
  accessReportOf,
  apply,
  applyOrg,
  collectionReads,
  create,
  get,
  list,
  listAt,
  listOrgs,
  patch,
  permissionsAt,
  remove,
  replace,
  type Collection,
  type KindBodies,
  type KindPlace,
  type OperationTemplate,
} from "./operations.js";
import { gvcParam, itemParam, orgParam, paramsOf } from "./params.js";
import { jsonSchemaOf, named, type NamedSchema, type Route } from "./route.js";

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The named body schemas of a kind's operations (built on demand: the zod schemas are lazy). */
function bodiesOf(records: RecordService, kind: Kind): KindBodies {
  const info = kinds[kind];
  const Name = pascal(kind);
  const patchSchema = info.schemas.patch;
  const put: NamedSchema = {
    name: `${Name}Put`,
    io: "input",
    keys: "patch",
    // A field a PUT may leave out for its create default (`omittedDefaults`, a location's spec) is not required.
    build: () => {
      const defaulted = Object.keys(records.rules[kind].fields.omittedDefaults ?? {});
      const required = records.alwaysPresent(kind).filter((field) => !defaulted.includes(field));
      return putBodyOf(patchSchema(), kind, { required, defaulted });
    },
  };
  // The field a collection PUT names its object by: `name` (`email` for users), or `id` for kinds addressed by id.
  const keyField = info.addressing.by === "id" ? "id" : info.addressing.field;
  const createSchema = info.schemas.create;
  return {
    record: named(Name, "output", info.schemas.record),
    list: named(`${Name}List`, "output", () => listResponse(info.schemas.record())),
    patch: {
      name: `${Name}Patch`,
      io: "input",
      keys: "patch",
      build: () => patchBodyOf(kindPinned(jsonSchemaOf(patchSchema(), "input"), kind), records.alwaysPresent(kind)),
    },
    put,
    keyedPut: {
      name: `${Name}Apply`,
      io: "input",
      keys: "patch",
      build: () =>
        keyedPutBodyOf(put.build(), keyField, `Names the ${kind} replaced (required: nothing else names it).`),
    },
    ...(createSchema
      ? {
          create: {
            name: `${Name}Create`,
            io: "input" as const,
            build: () => manifestOf(jsonSchemaOf(createSchema(), "input"), kind, info.scope === "gvc"),
          },
        }
      : {}),
  };
}

/** Where a kind is served and what its operations share. */
function placeOf(records: RecordService, kind: Kind): KindPlace {
  const info = kinds[kind];
  const shared = { kind, Name: pascal(kind), info, records, tags: [kind], bodies: bodiesOf(records, kind) };
  if (info.singleton) {
    // The org itself: `/org/{org}`, no collection.
    return {
      ...shared,
      article: "the",
      answer: `The ${kind}`,
      item: "/org/{org}",
      itemParams: [orgParam],
      key: (request: FastifyRequest) => paramsOf(request)["org"] ?? "",
      created: { collection: "/org", field: info.addressing.field },
    };
  }
  const scoped = info.scope === "gvc";
  const collection: Collection = {
    path: scoped ? `/org/{org}/gvc/{gvc}/${kind}` : `/org/{org}/${kind}`,
    params: scoped ? [orgParam, gvcParam] : [orgParam],
    suffix: "",
  };
  const itemP = itemParam(kind);
  return {
    ...shared,
    article: "a",
    answer: "The object",
    collection,
    item: `${collection.path}/{${itemP.name}}`,
    itemParams: [...collection.params, itemP],
    key: (request: FastifyRequest) => paramsOf(request)[itemP.name] ?? "",
    created: { collection: collection.path, field: info.addressing.field },
  };
}

/** The operations of the org itself. */
const singletonOperations = (k: KindPlace): OperationTemplate[] => [
  listOrgs,
  get,
  patch,
  applyOrg,
  accessReportOf,
  permissionsAt({ path: `/org/{org}/${k.kind}`, params: [orgParam], suffix: "" }),
];

/** A gvc-scoped kind's reads at the org level, across every gvc. */
const orgLevel = (at: Collection): OperationTemplate[] => [listAt(at), ...collectionReads(at)];

/** The operations of a kind with a collection, in the order the document lists them. */
const collectionOperations = (k: KindPlace, at: Collection): OperationTemplate[] => [
  list,
  create,
  apply,
  ...collectionReads(at),
  // gvc-scoped kinds are also listed and queried across every gvc, and their catalog read, at the org level: the
  // docs' "Get all identities from all gvcs" (`GET /org/{org}/identity`, likewise workload and volumeset), which the
  // CLI's `get --all-gvcs` reads, and `POST /org/{org}/<kind>/-query`, which its `query` sends.
  ...(k.info.scope === "gvc" ? orgLevel({ path: `/org/{org}/${k.kind}`, params: [orgParam], suffix: "InOrg" }) : []),
  get,
  patch,
  replace,
  remove,
  accessReportOf,
];

/** Every operation served for the kinds of the contract, from the kind descriptors (`api/kinds/`). */
export function recordRoutes(records: RecordService): Route[] {
  const routes: Route[] = [];
  for (const kind of kindNames) {
    const place = placeOf(records, kind);
    const templates =
      place.collection === undefined ? singletonOperations(place) : collectionOperations(place, place.collection);
    for (const template of templates) if (template.applies?.(place) ?? true) routes.push(template.route(place));
    routes.push(...endpointRoutes(place), ...actionRoutes(place));
  }
  // Every body but a query's is checked for links into another org (RecordService: create, write, action, endpoint);
  // the reveal-only fields of the kind's write bodies stay out of request logs.
  return routes.map((route) => {
    if (!route.body || /^(query|continueQuery)/.test(route.operationId)) return route;
    const redact = revealOnlyBodyFields(route.tags[0] as Kind);
    return {
      ...route,
      rules: [...(route.rules ?? []), orgLinkRule],
      ...(redact.length > 0 ? { redactBody: redact } : {}),
    };
  });
}
