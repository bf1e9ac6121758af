import { kinds, kindNames } from "../api/kinds.js";
import { EMULATOR_PREFIX } from "./routes/emulator.js";

type Operation = Record<string, unknown>;
type Add = (path: string, method: string, operation: Operation) => void;

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/ApiError" } } },
});
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [String(code), error(`Error ${code}`)])) as Record<string, unknown>;
const json = (description: string, schema: Record<string, unknown> = { type: "object" }) => ({
  description,
  content: { "application/json": { schema } },
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const cursor = {
  name: "cursor",
  in: "query",
  required: false,
  description: "Continues a paged answer: take the whole URL from the previous page's `next` link.",
  schema: { type: "string" },
};

function pascal(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

/**
 * The OpenAPI entries of the routes this module's task added: create-or-update on collections, paging (`cursor`,
 * `GET .../-query`), org-level query and permission schema of gvc-scoped kinds, and the emulator endpoints.
 */
export function addLocalPaths(
  paths: Record<string, Record<string, unknown>>,
  add: Add,
  schemas: Record<string, unknown>,
): void {
  for (const kind of kindNames) {
    if (kind === "org") continue;
    const name = pascal(kind);
    const tags = [kind];
    const base = kinds[kind].scope === "gvc" ? `/org/{org}/gvc/{gvc}/${kind}` : `/org/{org}/${kind}`;
    const list = paths[base]?.["get"] as Operation | undefined;
    if (list) list["parameters"] = [cursor];
    if (schemas[`${name}Create`] !== undefined) {
      add(base, "put", {
        tags,
        summary: `Create or replace a ${kind} named by the body (what \`cpln apply\` sends)`,
        description:
          "Creates the object (201 + Location) or replaces its writable fields (200). Read-only fields (kind, id, " +
          "version, created, lastModified, links, status; gvc for gvc-scoped kinds) are accepted; version, when " +
          "given, must be current; a kind that contradicts the path is a 400.",
        requestBody: { required: true, content: { "application/json": { schema: ref(name) } } },
        responses: {
          "200": json("Replaced", ref(name)),
          "201": json("Created", ref(name)),
          ...errors(400, 401, 403, 404, 409, 429),
        },
      });
    }
    const queryPage = {
      tags,
      summary: `Next page of a ${kind} query`,
      parameters: [{ ...cursor, required: true }],
      responses: { "200": json("Matches", ref(`${name}QueryResult`)), ...errors(400, 401, 404) },
    };
    add(`${base}/-query`, "get", queryPage);
    if (kinds[kind].scope === "gvc") {
      const org = `/org/{org}/${kind}`;
      add(`${org}/-query`, "post", {
        tags,
        summary: `Query ${kind} objects of every gvc`,
        requestBody: { required: true, content: { "application/json": { schema: ref("QueryDocument") } } },
        responses: { "200": json("Matches", ref(`${name}QueryResult`)), ...errors(400, 401, 404) },
      });
      add(`${org}/-query`, "get", queryPage);
      add(`${org}/-schema/permissions`, "get", {
        tags,
        summary: `Permissions of ${kind}`,
        responses: { "200": json("Catalog", ref("PermissionSchema")), ...errors(401, 404) },
      });
    }
  }
  const admin = { tags: ["cpln-local"], description: "Admin key only: 401 without valid credentials, 403 otherwise." };
  add(`${EMULATOR_PREFIX}/health`, "get", {
    ...admin,
    summary: "Health (a CI job waits on it)",
    responses: { "200": json("Serving"), ...errors(401, 403) },
  });
  add(`${EMULATOR_PREFIX}/org/{org}/reset`, "post", {
    ...admin,
    summary: "Reset the org to its freshly seeded state",
    responses: { "200": json("Reset"), ...errors(401, 403, 404) },
  });
  add(`${EMULATOR_PREFIX}/org/{org}/state`, "get", {
    ...admin,
    summary: "Export the whole org as one JSON snapshot (the format --seed accepts)",
    responses: { "200": json("{records, serviceAccountKeys}"), ...errors(401, 403, 404) },
  });
  add(`${EMULATOR_PREFIX}/org/{org}/state`, "put", {
    ...admin,
    summary: "Replace the whole org by a snapshot",
    requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
    responses: { "200": json("Imported"), ...errors(400, 401, 403, 404) },
  });
  add(`${EMULATOR_PREFIX}/requests`, "get", {
    ...admin,
    summary: "The last requests (method, path, status, durationMs, body; never credentials or response bodies)",
    parameters: [{ name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1 } }],
    responses: { "200": json("Requests"), ...errors(400, 401, 403) },
  });
  add(`${EMULATOR_PREFIX}/requests`, "delete", {
    ...admin,
    summary: "Forget the recorded requests",
    responses: { "204": { description: "Cleared" }, ...errors(401, 403) },
  });
}
