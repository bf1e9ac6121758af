import { echoOnly } from "./jsonRules.js";
import { z } from "zod";
import { lazy } from "../lazy.js";
import {
  description,
  describedTaggedPatchFields,
  name,
  patchObject,
  readOnlyPatchShape,
  recordShape,
  tags,
} from "./common.js";

export const locationOrigins = ["builtin", "default", "custom"] as const;
export const locationProviders = ["aws", "gcp", "azure", "byok", "linode", "vultr", "equinix", "oci"] as const;
export type LocationProvider = (typeof locationProviders)[number];

export const locationSpec = lazy(() =>
  z
    .strictObject({
      enabled: z.boolean().optional().describe("Whether workloads may run in this location (default true)."),
    })
    .describe("Location settings."),
);

export const locationGeo = lazy(() =>
  z
    .looseObject({
      lat: z.number().optional().describe("Latitude."),
      lon: z.number().optional().describe("Longitude."),
      country: z.string().optional().describe("Country."),
      state: z.string().optional().describe("State or region."),
      city: z.string().optional().describe("City."),
      continent: z.string().optional().describe("Continent."),
    })
    .describe("Where the location is."),
);

export const locationStatus = lazy(() =>
  z
    .looseObject({
      geo: locationGeo().optional(),
      ipRanges: z.array(z.string()).optional().describe("Egress IP ranges (CIDR)."),
    })
    .describe("Server-maintained facts about the location."),
);

export const location = lazy(() =>
  z
    .looseObject({
      ...recordShape("location"),
      origin: z.enum(locationOrigins).describe("builtin (cloud regions), default, or custom (BYOK). Read-only."),
      provider: z.enum(locationProviders).describe("Cloud provider. Read-only."),
      region: z.string().describe("Provider region (a BYOK location's region is its name). Read-only."),
      spec: z.looseObject({ enabled: z.boolean().optional().describe("Whether workloads may run here.") }),
      status: locationStatus().optional(),
    })
    .describe("A place workloads can run: a cloud region or a bring-your-own-Kubernetes cluster."),
);
export type Location = z.infer<ReturnType<typeof location>>;

/** Body of POST /org/{org}/location: only BYOK locations are created (built-in ones already exist). */
export const locationCreate = lazy(() =>
  z
    .strictObject({
      name: name(),
      description: description().optional(),
      tags: tags().optional(),
      provider: z.literal("byok").describe("Only 'byok' locations can be created."),
      spec: locationSpec().optional(),
    })
    .describe("Body of POST /org/{org}/location (BYOK locations only)."),
);
export type LocationCreate = z.infer<ReturnType<typeof locationCreate>>;

/**
 * Body of PATCH /org/{org}/location/{name}. `spec.enabled`, description and tags change; origin, provider and region
 * may be sent back unchanged (a different value is a 400). Server tags under `cpln/` survive `$replace/tags`.
 */
export const locationPatch = lazy(() =>
  patchObject(
    {
      ...describedTaggedPatchFields(),
      spec: {
        value: locationSpec(),
        merge: patchObject({ enabled: { value: z.boolean().describe("Whether workloads may run here.") } }),
      },
    },
    {
      ...readOnlyPatchShape(),
      origin: echoOnly(z.enum(locationOrigins).optional().describe("Read-only; must equal the current value.")),
      provider: echoOnly(z.enum(locationProviders).optional().describe("Read-only; must equal the current value.")),
      region: echoOnly(z.string().optional().describe("Read-only; must equal the current value.")),
    },
  ).describe("Body of PATCH /org/{org}/location/{name}: merge fields and patch directives."),
);
export type LocationPatch = z.infer<ReturnType<typeof locationPatch>>;
