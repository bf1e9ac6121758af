import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// Builtin locations always exist: the Location resource adopts one, sets `enabled` and tags, and on destroy puts the
// original values back. `location-toggle:enabled` flips it: one PATCH of spec.enabled.
const config = new pulumi.Config("location-toggle");
const enabled = config.getBoolean("enabled") ?? false;
const locationName = config.get("location") ?? "gcp-europe-west3";

const location = new cpln.Location("frankfurt", {
  name: locationName,
  enabled,
  tags: { "managed-by": "pulumi" },
});

// The same location, read as data (no state): provider, region and the server's geo tags.
const info = cpln.getLocationOutput({ name: locationName });

export const locationSelfLink = location.selfLink;
export const locationEnabled = location.enabled;
export const provider = info.provider;
export const region = info.region;
export const city = info.apply((l) => (l.tags as Record<string, unknown> | undefined)?.["cpln/city"]);
