/**
 * Deletion protection: "Control Plane prevents deletion of any resource that has the `cpln/protected` tag set to
 * `true`" (docs.controlplane.com/guides/resource-protection; controlplane-docs/docs `guides/resource-protection.mdx`
 * @ 566c726). The refusal's status is not documented: cpln-local answers 403 (see docs/fidelity.md).
 */
export const PROTECTED_TAG = "cpln/protected";

/** Whether a record's tags protect it from deletion (`"true"`, as the CLI's `--tag cpln/protected=true` sends, or `true`). */
export function isProtected(tags: unknown): boolean {
  if (typeof tags !== "object" || tags === null || Array.isArray(tags)) return false;
  const value = (tags as Record<string, unknown>)[PROTECTED_TAG];
  return value === "true" || value === true;
}

export function protectedMessage(kind: string, name: string): string {
  return (
    `The ${kind} ${name} is protected from deletion by the tag ${PROTECTED_TAG}=true: remove the tag (or set it to ` +
    "another value) first"
  );
}
