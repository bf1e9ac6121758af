import { z } from "zod";
import { crossFieldRules, type DocumentedRule } from "./jsonRules.js";
import { object, patchObject, type ObjectMode, type PatchField } from "./common.js";
import { targetLinkPattern } from "./policyRules.js";

/**
 * Tracing settings of a gvc (`spec.tracing`) and of an org (`spec.tracing`): `Tracing` of controlplane-com/types-ts
 * `src/interfaces/tracing.ts`; sampling 0-100 and one provider per block as terraform-provider-cpln's
 * `internal/provider/common.go` (`LightstepTracingSchema`: `float64validator.Between(0.0, 100.0)`; `BuildTracing`
 * sends exactly one of lightstep, otel, controlplane).
 */

export const TRACING_PROVIDERS = ["otel", "lightstep", "controlplane"] as const;

/** The provider rule as the document states it for merges (a merge may add a second provider to a stored one). */
export const tracingProviderRule: DocumentedRule = {
  rule: "tracing.provider sets exactly one of otel, lightstep, controlplane, after a merge too.",
  issue: /^must set exactly one of otel, lightstep, controlplane \(.*\)$/,
};

/** A link to a secret (`//secret/<name>` or `/org/<org>/secret/<name>`). */
export function secretLink(text: string) {
  const pattern = targetLinkPattern("secret");
  return z
    .string()
    .regex(new RegExp(pattern, "u"), "must be a link to a secret (//secret/<name>)")
    .describe(`${text} A link to a secret: //secret/<name> or /org/<org>/secret/<name>.`);
}

function endpoint() {
  return z.string().min(1).describe("Endpoint the traces are sent to (host:port).");
}

function lightstep(mode: ObjectMode) {
  return object(mode, {
    endpoint: endpoint(),
    credentials: secretLink("Opaque secret holding the access token.").optional(),
  }).describe("Lightstep.");
}

function customTag(mode: ObjectMode) {
  return object(mode, {
    literal: object(mode, { value: z.string().optional().describe("The tag's value.") })
      .optional()
      .describe("A literal value."),
  }).describe("A tag added to every span.");
}

function customTags(mode: ObjectMode) {
  return z.record(z.string().min(1), customTag(mode)).describe("Tags added to every span, by name.");
}

function provider(mode: ObjectMode) {
  const shape = object(mode, {
    otel: object(mode, { endpoint: endpoint() }).optional().describe("An OpenTelemetry collector."),
    lightstep: lightstep(mode).optional(),
    controlplane: object(mode, {}).optional().describe("Control Plane's own tracing (no settings)."),
  }).describe(`Where traces go: exactly one of ${TRACING_PROVIDERS.join(", ")}.`);
  if (mode === "loose") return shape;
  return shape
    .superRefine((value, ctx) => {
      const set = TRACING_PROVIDERS.filter((p) => (value as Record<string, unknown>)[p] !== undefined);
      if (set.length !== 1) {
        ctx.addIssue({
          code: "custom",
          message: `must set exactly one of ${TRACING_PROVIDERS.join(", ")} (${set.length === 0 ? "none" : set.join(" and ")} set)`,
        });
      }
    })
    .register(crossFieldRules(), { minProperties: 1, maxProperties: 1 });
}

const SAMPLING = () =>
  z.number().min(0, "must be 0-100").max(100, "must be 0-100").describe("Percentage of requests traced: 0-100.");

/** `spec.tracing` of a gvc or an org. */
export function tracing(mode: ObjectMode) {
  return object(mode, {
    sampling: SAMPLING(),
    lightstep: lightstep(mode).optional().describe("Lightstep (the older form of provider.lightstep)."),
    customTags: customTags(mode).optional(),
    provider: provider(mode).optional(),
  }).describe("Distributed tracing: the share of requests traced and where the traces go.");
}

/** The PATCH form of `spec.tracing`: objects merge, `customTags` entries merge by name (null removes one). */
export function tracingPatch(): PatchField {
  const leaf = (value: z.ZodType): PatchField => ({ value });
  return {
    value: tracing("strict"),
    merge: patchObject({
      sampling: { value: SAMPLING(), required: true },
      lightstep: {
        value: lightstep("strict"),
        merge: patchObject({ endpoint: { value: endpoint(), required: true }, credentials: leaf(secretLink("")) }),
      },
      customTags: {
        value: customTags("strict"),
        merge: z
          .record(z.string().min(1), customTag("strict").nullable())
          .describe("Tags to set by name; null removes a tag."),
      },
      provider: {
        value: provider("strict"),
        merge: patchObject({
          otel: leaf(object("strict", { endpoint: endpoint() }).describe("An OpenTelemetry collector.")),
          lightstep: leaf(lightstep("strict")),
          controlplane: leaf(object("strict", {}).describe("Control Plane's own tracing.")),
        }).describe("Changes to the provider; the result must set exactly one."),
      },
    }).describe("Changes to the tracing settings."),
  };
}
