/**
 * The record service's writes to an existing object: PATCH (the patch engine, then the immutable and read-only
 * fields, the kind's rules and the record's checks, retried when the version moved) and PUT, run as the equivalent
 * PATCH.
 */
import { z } from "zod";
import { ErrorCode, issuesFromZod, type Issue } from "../../api/errors.js";
import { kinds, type Kind } from "../../api/kinds/index.js";
import { applyPatch, equalUnder, PatchError } from "../../api/patch/index.js";
import { ApiFailure, badRequest, conflict, forbidden, notFound, resultConflict, stateConflict } from "../errors.js";
import type { JsonObject, JsonValue } from "../store/store.js";
import { parseCoerced } from "./coerce.js";
import { fullLinksInDirectives, nowIso } from "./common.js";
import { foreignOrgLinks } from "./orgLinks.js";
import { presentRecord } from "./present.js";
import { storedBytesOf } from "./quota.js";
import { checkRecord, consumeBytes } from "./recordChecks.js";
import type { Call, RecordContext } from "./recordContext.js";
import {
  checkKindField,
  isEchoedField,
  PATCH_ATTEMPTS,
  REPLACE,
  requireObject,
  sameAt,
  withDoc,
  withoutReadOnly,
} from "./recordFields.js";
import type { RuleContext } from "./rules.js";

/**
 * PUT to an object: the body is the whole desired object. Every field a PATCH can replace is set to the body's
 * value, or removed when the body leaves it out; read-only fields may be echoed as in a PATCH. Runs as the
 * equivalent PATCH, so the same checks (version, immutable and read-only fields, validation) apply.
 */
export async function putRecord(
  service: RecordContext,
  call: Call,
  kind: Kind,
  key: string,
  rawBody: unknown,
): Promise<JsonObject> {
  // Only the shape is read here; the patch checks `kind` and every field after authorization.
  const raw = requireObject(rawBody, "The request body");
  const body = withoutReadOnly(kind, raw, ["version", "id", "name", "kind"]);
  const schema = service.rules[kind].patchBody?.();
  const replaceable =
    schema instanceof z.ZodObject
      ? Object.keys(schema.shape)
          .filter((k) => k.startsWith(REPLACE))
          .map((k) => k.slice(REPLACE.length))
      : [];
  const patch: JsonObject = {};
  for (const [field, value] of Object.entries(body)) if (!replaceable.includes(field)) patch[field] = value;
  // Fields left out get their create defaults: description = name, no tags, and the kind's own (`omittedDefaults`).
  // A reveal-only field left out is kept: GET never returns it, so a record as read, sent back, changes nothing.
  const defaults: JsonObject = { description: key, tags: {}, ...service.rules[kind].fields.omittedDefaults };
  const kept = kinds[kind].revealOnly ?? [];
  for (const field of replaceable) {
    if (body[field] === undefined && kept.includes(field)) continue;
    patch[`${REPLACE}${field}`] = body[field] ?? defaults[field] ?? null;
  }
  return patchRecord(service, call, kind, key, patch, (path) =>
    path.startsWith(REPLACE) ? path.slice(REPLACE.length) : path,
  );
}

export async function patchRecord(
  service: RecordContext,
  call: Call,
  kind: Kind,
  key: string,
  rawBody: unknown,
  bodyPath: (path: string) => string = (path) => path,
): Promise<JsonObject> {
  const rules = service.rules[kind];
  // Authorization before validation: a caller who may not edit the object learns nothing from its body's flaws.
  const { record: visible, authz } = await service.loadVisible(call, kind, key);
  if (!authz.can(call.principal, kind, "edit", visible.doc)) {
    throw forbidden(`Not allowed to edit ${kind} ${key}`);
  }
  // Objects that cannot be edited (builtins) still accept a write that changes nothing (an unchanged apply).
  const editForbidden = rules.access?.editForbidden?.(visible.doc);
  if (!rules.patchBody) throw new ApiFailure(ErrorCode.MethodNotAllowed, `Objects of kind ${kind} cannot be patched`);
  const raw = requireObject(rawBody, "The patch body");
  checkKindField(kind, raw);
  // `version` is checked (optimistic concurrency), `id`/`name`/`kind` must match; the other read-only fields go.
  const stripped = withoutReadOnly(kind, raw, ["version", "id", "name", "kind"]);
  const { value: body, parsed } = parseCoerced(rules.patchBody(), stripped);
  if (!parsed.success) {
    throw badRequest(issuesFromZod(parsed.error).map((i) => ({ path: bodyPath(i.path), message: i.message })));
  }
  const drops = Array.isArray(body["$drop"]) ? body["$drop"] : [];
  const removals: Issue[] = [];
  for (const field of service.alwaysPresent(kind)) {
    for (const key of [field, `${REPLACE}${field}`]) {
      if (body[key] === null)
        removals.push({ path: bodyPath(key), message: "is required: it cannot be removed (null is refused)" });
    }
    if (drops.includes(field)) removals.push({ path: "$drop", message: `names ${field}, which cannot be removed` });
  }
  if (removals.length > 0) throw badRequest(removals);
  const foreign = foreignOrgLinks(call.org, body);
  if (foreign.length > 0) throw badRequest(foreign.map((i) => ({ ...i, path: bodyPath(i.path) })));
  const expectedVersion = body["version"];
  const ignored = rules.fields.ignoredInPatch ?? [];
  let patch: JsonObject = {};
  for (const field of Object.keys(body)) {
    if (!isEchoedField(field) && !ignored.includes(field)) patch[field] = body[field] as JsonValue;
  }
  if (rules.fields.linkArrays) patch = fullLinksInDirectives(call.org, patch, rules.fields.linkArrays) as JsonObject;
  const gvc = kinds[kind].scope === "gvc" ? call.gvc : undefined;
  for (let attempt = 1; ; attempt++) {
    const now = nowIso();
    const outcome = await service.store.transaction(async (tx) => {
      const current = await service.find(tx, call, kind, visible.scope, key);
      if (!current) throw notFound(`${kind} ${key}`);
      const previous = current.doc;
      checkEcho(body, previous, expectedVersion);
      const ctx: RuleContext = { org: call.org, gvc, tx, now };
      let next: JsonObject;
      try {
        // The stored record is frozen: the result may share the fields the patch does not name.
        next = applyPatch(previous, patch, service.patchRulesOf(kind), { shareUntouched: true }) as JsonObject;
      } catch (error) {
        if (error instanceof PatchError) {
          const issue = { path: bodyPath(error.path), message: error.reason };
          throw error.conflict ? resultConflict(kind, [issue]) : badRequest([issue]);
        }
        throw error;
      }
      for (const field of rules.fields.preserved) {
        if (previous[field] === undefined) {
          if (Object.hasOwn(next, field)) delete next[field];
        } else next[field] = previous[field];
      }
      if (rules.lifecycle.afterPatch) next = await rules.lifecycle.afterPatch(previous, next, ctx);
      if (editForbidden !== undefined && !equalUnder(previous, next, service.patchRulesOf(kind))) {
        throw forbidden(editForbidden);
      }
      // Valid in itself, ruled out by the stored object: a conflict with its state (409), not a bad request. A
      // read-only field may be echoed, and must then equal the stored value (as `version` must be current).
      const conflicts: Issue[] = [];
      const guarded = service.guardedFields(kind);
      for (const field of guarded.readOnly) {
        if (!sameAt(previous, next, field)) {
          conflicts.push({
            path: field.path,
            message: "is read-only: it is set by the server and cannot be changed",
          });
        }
      }
      for (const field of guarded.immutable) {
        if (!sameAt(previous, next, field)) {
          conflicts.push({ path: field.path, message: "is immutable: it cannot change after the object is created" });
        }
      }
      if (conflicts.length > 0) throw stateConflict(conflicts);
      if (equalUnder(previous, next, service.patchRulesOf(kind))) {
        call.onPatched?.(presentRecord(kind, previous));
        return { done: true as const, doc: previous };
      }
      next["version"] = current.version + 1;
      next["lastModified"] = now;
      await checkRecord(service, kind, next, ctx, previous);
      const replaced = await tx.replace(withDoc(current, current.version + 1, next), current.version);
      if (!replaced) return { done: false as const };
      await consumeBytes(tx, call.org, kind, storedBytesOf(next) - storedBytesOf(previous));
      if (rules.lifecycle.patched) await rules.lifecycle.patched(previous, next, ctx);
      call.onPatched?.(presentRecord(kind, previous));
      return { done: true as const, doc: next };
    });
    if (outcome.done) return presentRecord(kind, outcome.doc);
    if (attempt >= PATCH_ATTEMPTS) {
      throw conflict("VersionConflict", `${kind} ${key} kept changing; retry the request`);
    }
  }
}

/** A PATCH body may echo read-only fields: `version` must be current, `id`/`name` must match (`kind` was checked
 * against the path before: `checkKindField`). */
function checkEcho(body: JsonObject, previous: JsonObject, expectedVersion: JsonValue | undefined): void {
  if (expectedVersion !== undefined && expectedVersion !== previous["version"]) {
    throw conflict(
      "VersionConflict",
      `version ${String(expectedVersion)} is not current (the object is at version ${String(previous["version"])})`,
    );
  }
  // Echoed, they must match the object addressed: like a stale version, a conflict with the object (409).
  const issues: Issue[] = [];
  for (const field of ["id", "name"] as const) {
    if (body[field] !== undefined && body[field] !== previous[field]) {
      issues.push({
        path: field,
        message: `does not match the object (${String(previous[field])}); it cannot change`,
      });
    }
  }
  if (issues.length > 0) throw stateConflict(issues);
}
