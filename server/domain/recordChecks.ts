/**
 * What every write checks before it stores a record: the record schema, the kind's own rules and the stored limits
 * (`checkRecord`), and the quotas it moves (`consumeQuota`, `consumeBytes`).
 */
import { ErrorCode, issuesFromZod, type Issue } from "../../api/errors.js";
import type { Kind } from "../../api/kinds/index.js";
import { ApiFailure, badRequest, resultConflict, stateConflict } from "../errors.js";
import { freezeWithJson } from "../json.js";
import type { JsonObject, StoreOps } from "../store/store.js";
import { storedLimitIssues } from "./limits.js";
import { STORED_BYTES_QUOTA } from "./quota.js";
import type { RecordContext } from "./recordContext.js";
import { changedFieldIssues, withDoc } from "./recordFields.js";
import type { RuleContext } from "./rules.js";

/**
 * Checks a whole record: the record schema, the kind's extra rules and the stored limits (400 with every issue).
 * `previous` is the stored record a patch started from: it passed this check when it was written, so only the
 * fields the patch changed are checked against the schema again (see `changedFieldIssues`).
 */
export async function checkRecord(
  service: RecordContext,
  kind: Kind,
  doc: JsonObject,
  ctx: RuleContext,
  previous?: JsonObject,
): Promise<void> {
  const rules = service.rules[kind];
  const schema = rules.record();
  const issues: Issue[] = [];
  const changed = previous === undefined ? undefined : changedFieldIssues(schema, doc, previous);
  if (changed !== undefined) issues.push(...changed);
  else {
    const parsed = schema.safeParse(doc);
    if (!parsed.success) issues.push(...issuesFromZod(parsed.error));
  }
  // The kind's own rules read a well-formed record (a patch may have removed a field the record needs). On an
  // update, values its immutable fields rule out come first: a 409, as the same body suits another object.
  if (issues.length === 0 && previous !== undefined && rules.lifecycle.conflicts) {
    const conflicts = rules.lifecycle.conflicts(doc);
    if (conflicts.length > 0) throw stateConflict(conflicts);
  }
  const ruleIssues =
    issues.length === 0 && rules.lifecycle.validate ? await rules.lifecycle.validate(doc, ctx, previous) : [];
  issues.push(...ruleIssues);
  // The body limits hold for the record as stored, whatever sequence of PATCHes and PUTs built it.
  const text = JSON.stringify(doc);
  issues.push(...storedLimitIssues(doc, rules.fields, previous, text));
  // A write to an existing object whose body passed its own schema and whose result breaks only the record's schema
  // or the stored limits (a merge creating an object without the fields it requires, tags added past the limit):
  // the outcome depends on the stored object, a conflict with its state (RFC 5789 §2.2), as the same body suits
  // another object. The kind's own rules judge the body's values: a 400.
  if (issues.length > 0 && previous !== undefined && ruleIssues.length === 0) throw resultConflict(kind, issues);
  if (issues.length > 0) throw badRequest(issues);
  // The record as it will be stored: frozen with its JSON text, which the store writes and the answer sends.
  freezeWithJson(doc, text, previous);
}

/**
 * Moves the org's `stored-bytes` quota by `delta` bytes of stored JSON (quotas themselves are not counted: their
 * usage moves with every write); a write that grows the org past it is a 429 naming it.
 */
export async function consumeBytes(tx: StoreOps, org: string, kind: Kind, delta: number): Promise<void> {
  if (delta !== 0 && kind !== "quota") await consumeQuota(tx, org, STORED_BYTES_QUOTA, "", delta);
}

/** Adds `delta` to a quota's `current`; a create that would pass `max` is a 429 naming the quota. */
export async function consumeQuota(
  tx: StoreOps,
  org: string,
  name: string,
  scope: string,
  delta: number,
): Promise<void> {
  const quota = await tx.get(org, "quota", scope, name);
  if (!quota) return;
  const current = Number(quota.doc["current"] ?? 0);
  const max = Number(quota.doc["max"] ?? Infinity);
  const next = Math.max(0, current + delta);
  if (delta > 0 && next > max) {
    const where = scope === "" ? "" : ` in gvc ${scope}`;
    throw new ApiFailure(
      ErrorCode.QuotaExceeded,
      `Quota ${name} exceeded${where}: ${current} of ${max} used (quota id ${quota.id})`,
      { quota: name, quotaId: quota.id, current, max },
    );
  }
  // `current` is live usage, not configuration: it changes neither version nor lastModified, and the store may
  // write it once for several creates (`touch`).
  if (!(await tx.touch(withDoc(quota, quota.version, { ...quota.doc, current: next })))) {
    throw new Error(`quota ${name} changed while its usage moved`);
  }
}
