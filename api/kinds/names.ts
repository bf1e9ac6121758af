/**
 * The kinds cpln-local stores, by name: beneath every descriptor and schema that names a kind, so none of them needs
 * the registry (`index.ts`) to say what a kind is.
 */
export const kindNames = [
  "org",
  "gvc",
  "volumeset",
  "location",
  "policy",
  "group",
  "serviceaccount",
  "user",
  "cloudaccount",
  "mk8s",
  "auditctx",
  "quota",
  "workload",
  "domain",
  "image",
  "secret",
  "identity",
] as const;
export type Kind = (typeof kindNames)[number];
