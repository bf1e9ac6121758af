/**
 * How each `@pulumiverse/cpln` resource, property, function and config key maps to this package: the judgement the
 * migration guide needs on top of the two schemas. Only what the schemas cannot say is written here: a property with
 * the same path and a compatible type in both schemas is "same" without an entry, and the generator refuses an entry
 * for such a property (so this table cannot go stale) as well as a pulumiverse property with neither.
 */

import { appEntries, appMoves, appResources } from "./mappingApp.js";

import type { PropertyMapping, PropertyMove, Status } from "./mappingTypes.js";

export type { PropertyMapping, PropertyMove, Status };

/** pulumiverse resource → this package's resource, or why there is none. */
export const resourceMap: Record<string, { to: string; why?: string } | { to?: undefined; why: string }> = {
  AuditContext: { to: "AuditContext" },
  CloudAccount: { to: "CloudAccount" },
  CustomLocation: {
    to: "Location",
    why:
      "Location adopts an existing location (built-in or custom) and manages its enabled flag, description and " +
      "tags; this package does not create custom locations.",
  },
  Group: { to: "Group" },
  Location: { to: "Location" },
  Policy: { to: "Policy" },
  ServiceAccount: { to: "ServiceAccount" },
  ServiceAccountKey: { to: "ServiceAccountKey" },
  VolumeSet: { to: "VolumeSet" },
  ...appResources,
};

/**
 * A pulumiverse resource with a counterpart of the same name here whose properties are not mapped one by one yet:
 * both follow the API, so most carry over under the API's field names.
 */
export const unmappedReason =
  "Managed here too, as the API states it (spec fields flat, the API's names): see docs/resources.md for its " +
  "arguments; no property-by-property map to pulumiverse yet.";

/** A pulumiverse function with a counterpart of the same name here (a kind's declared data source), not compared. */
export const unmappedFunctionReason =
  "Here too, with the API's shapes and names: see docs/resources.md for its arguments and result; " +
  "no property-by-property map to pulumiverse yet.";

/** Why the other pulumiverse resources have no counterpart (one reason serves all: the kind is not managed here). */
export const uncoveredReason =
  "No resource for this kind here: keep it in @pulumiverse/cpln (both providers can run in one program) or manage it " +
  "with the cpln CLI.";

/** Type pairs (pulumiverse → this package) that accept every value the pulumiverse type accepts. */
export const compatibleTypes: { from: string; to: string; note: string }[] = [
  {
    from: "map<string>",
    to: "map<string|number|boolean>",
    note: "string values as before; numbers and booleans are also accepted.",
  },
  { from: "string", to: "string|number|boolean", note: "string values as before; numbers and booleans too." },
];

/** Per resource, per pulumiverse property path: the properties that are not simply the same. */
export const propertyMap: Record<string, Record<string, PropertyMapping>> = {
  AuditContext: {},
  CloudAccount: {
    aws: { status: "reshaped", to: 'provider: "aws", data', why: "one `provider` plus a `data` object, as the API." },
    "aws.roleArn": { status: "reshaped", to: "data.roleArn", why: "the API's field inside `data`." },
    azures: {
      status: "reshaped",
      to: 'provider: "azure", data',
      why: "a single `data` object instead of a one-element list.",
    },
    "azures[].secretLink": { status: "reshaped", to: "data.secretLink", why: "the API's field inside `data`." },
    gcp: { status: "reshaped", to: 'provider: "gcp", data', why: "one `provider` plus a `data` object, as the API." },
    "gcp.projectId": { status: "reshaped", to: "data.projectId", why: "the API's field inside `data`." },
    ngs: { status: "reshaped", to: 'provider: "ngs", data', why: "one `provider` plus a `data` object, as the API." },
    "ngs.secretLink": { status: "reshaped", to: "data.secretLink", why: "the API's field inside `data`." },
    gcpRoles: {
      status: "missing",
      why: "GCP setup hints the Terraform provider computes on the client; they are not part of the API record.",
    },
    gcpServiceAccountName: {
      status: "missing",
      why: "GCP setup hints the Terraform provider computes on the client; they are not part of the API record.",
    },
    statuses: { status: "missing", why: "the record's status is not an output of this package's CloudAccount yet." },
    "statuses[].lastChecked": { status: "missing", why: "see `statuses`." },
    "statuses[].lastError": { status: "missing", why: "see `statuses`." },
    "statuses[].usable": { status: "missing", why: "see `statuses`." },
  },
  CustomLocation: {
    cloudProvider: {
      status: "reshaped",
      to: "provider (output)",
      why: "the location is adopted, not created: its provider is read from the API, not set.",
    },
    geos: { status: "reshaped", to: "geo", why: "one object, as the API returns it, instead of a one-element list." },
    "geos[].city": { status: "reshaped", to: "geo.city", why: "see `geos`." },
    "geos[].continent": { status: "reshaped", to: "geo.continent", why: "see `geos`." },
    "geos[].country": { status: "reshaped", to: "geo.country", why: "see `geos`." },
    "geos[].lat": { status: "reshaped", to: "geo.lat", why: "see `geos`." },
    "geos[].lon": { status: "reshaped", to: "geo.lon", why: "see `geos`." },
    "geos[].state": { status: "reshaped", to: "geo.state", why: "see `geos`." },
  },
  Group: {
    serviceAccounts: {
      status: "reshaped",
      to: "memberLinks",
      why: "members are one list of links: write `serviceaccount/<name>` (or `//serviceaccount/<name>`).",
    },
    userIdsAndEmails: {
      status: "reshaped",
      to: "memberLinks",
      why: "members are one list of links: write `user/<email or id>` (or `//user/<email>`).",
    },
  },
  Location: {
    cloudProvider: { status: "renamed", to: "provider", why: "the API's field name." },
    geos: { status: "reshaped", to: "geo", why: "one object, as the API returns it, instead of a one-element list." },
    "geos[].city": { status: "reshaped", to: "geo.city", why: "see `geos`." },
    "geos[].continent": { status: "reshaped", to: "geo.continent", why: "see `geos`." },
    "geos[].country": { status: "reshaped", to: "geo.country", why: "see `geos`." },
    "geos[].lat": { status: "reshaped", to: "geo.lat", why: "see `geos`." },
    "geos[].lon": { status: "reshaped", to: "geo.lon", why: "see `geos`." },
    "geos[].state": { status: "reshaped", to: "geo.state", why: "see `geos`." },
  },
  Policy: {},
  ServiceAccount: {},
  ServiceAccountKey: {
    serviceAccountName: { status: "renamed", to: "serviceAccount", why: "shorter name; same value (the name)." },
  },
  VolumeSet: {
    "autoscaling.predictive.lookbackHours": {
      status: "reshaped",
      to: "autoscaling.predictive.lookbackHours",
      why: "whole hours only (an integer, at most 168, as the API document).",
    },
    "autoscaling.predictive.projectionHours": {
      status: "reshaped",
      to: "autoscaling.predictive.projectionHours",
      why: "whole hours only (an integer, as the API document).",
    },
    "autoscaling.predictive.minGrowthRateGbPerHour": {
      status: "renamed",
      to: "autoscaling.predictive.minGrowthRateGBPerHour",
      why: "the API's spelling.",
    },
    statuses: { status: "reshaped", to: "status", why: "one object, the API's `status`, instead of a list." },
    "statuses[].bindingId": { status: "reshaped", to: "status.bindingId", why: "see `statuses`." },
    "statuses[].locations": {
      status: "reshaped",
      to: "status.locations[].name",
      why: "per location an object with its name, cluster and volumes, as the API returns it.",
    },
    "statuses[].parentId": { status: "reshaped", to: "status.parentId", why: "see `statuses`." },
    "statuses[].usedByWorkload": { status: "reshaped", to: "status.usedByWorkload", why: "see `statuses`." },
    "statuses[].workloadLinks": { status: "reshaped", to: "status.workloadLinks", why: "see `statuses`." },
    volumesetLink: {
      status: "missing",
      to: "`cpln://volumeset/${name}`",
      why: "the workload volume URI the Terraform provider computes from the name: write it in a workload's volume.",
    },
  },
  ...appEntries,
};

/** Per resource, the subtrees placed at once (see PropertyMove). */
export const propertyMoves: Record<string, PropertyMove[]> = appMoves;

/**
 * pulumiverse function → this package's function, or why there is none; a function with a namesake here that does
 * the same (a declared data source) needs no entry.
 */
export const functionMap: Record<string, { status: Status; to?: string; why: string }> = {
  getCloudAccount: {
    status: "missing",
    why:
      "returns Control Plane's own cloud identifiers for account setup; not served here (this package's " +
      "getCloudAccount reads one cloud account by name: another function under the same name).",
  },
  getGvc: {
    status: "reshaped",
    to: "getGvc",
    why: "by name; returns the API record (`spec`, `status`) instead of pulumiverse's flattened properties.",
  },
  getHelmTemplate: { status: "missing", why: "Helm releases are not managed by this package." },
  getImage: {
    status: "reshaped",
    to: "getImage",
    why: "by name (`<repository>:<tag>`); returns the API record (`digest`, `manifest`, `repository`, `tag`).",
  },
  getImages: {
    status: "reshaped",
    to: "getImages",
    why: "every image of the org, all pages; no query argument (filter the list in the program).",
  },
  getLocation: {
    status: "reshaped",
    to: "getLocation",
    why: "by name; returns the API record (`provider`, `region`, `spec.enabled`, `status`).",
  },
  getLocations: {
    status: "reshaped",
    to: "getLocations",
    why: "every location the caller may view, all pages, as API records.",
  },
  getOrg: {
    status: "reshaped",
    to: "getOrg",
    why: "the configured org (or `org`); returns the API record (`spec`, `status`).",
  },
  getSecret: {
    status: "reshaped",
    to: "getSecret",
    why: "by name; returns the API record (`type`, `data`) instead of one property per secret type.",
  },
  getWorkload: {
    status: "reshaped",
    to: "getWorkload",
    why: "by gvc and name; returns the API record (`spec`, `status`) instead of flattened properties.",
  },
};

/** pulumiverse config key (`cpln:<key>`) → this package's (`cpln-native:<key>`, or `cpln:<key>` for the dynamic SDK). */
export const configMap: Record<string, { status: Status; to?: string; why: string }> = {
  endpoint: { status: "renamed", to: "endpoint", why: "same meaning; env CPLN_ENDPOINT as before." },
  org: { status: "renamed", to: "org", why: "same meaning; env CPLN_ORG as before." },
  token: { status: "renamed", to: "token", why: "same meaning (secret); env CPLN_TOKEN as before." },
  profile: { status: "missing", why: "no cpln CLI profiles: set endpoint, org and token (or their env vars)." },
  refreshToken: { status: "missing", why: "tokens are not refreshed: use a service-account key as the token." },
};
