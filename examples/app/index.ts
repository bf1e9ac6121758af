import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

// Control Plane's quickstart as one program: a gvc in two locations, a dictionary secret, an identity that a policy
// lets reveal it, a volume set, a stateful workload that mounts the volume set and reads the secret as env, and a
// domain routed to the workload. The outputs: the workload's endpoint and the DNS records to create for the domain.
const config = new pulumi.Config("app");
// The edit the tests make: one container's environment variable.
const greeting = config.get("greeting") ?? "hello";
const domainName = config.get("domain") ?? "app.example.com";

const gvc = new cpln.Gvc("app", {
  description: "The app's global virtual cloud",
  staticPlacement: { locationLinks: ["//location/aws-eu-central-1", "//location/aws-us-west-2"] },
});

const settings = new cpln.Secret("app-settings", {
  type: "dictionary",
  data: { DATABASE_URL: "postgres://app@db.internal:5432/app", API_KEY: "example-key-not-real" },
});

const identity = new cpln.Identity("app", { gvc: gvc.name, description: "What the app's workload runs as" });

const reveal = new cpln.Policy("app-reveal", {
  description: "The app's identity may reveal its settings",
  targetKind: "secret",
  targetLinks: [settings.selfLink],
  bindings: [{ permissions: ["reveal"], principalLinks: [identity.selfLink] }],
});

const data = new cpln.VolumeSet("app-data", {
  gvc: gvc.name,
  initialCapacity: 10,
  performanceClass: "general-purpose-ssd",
  fileSystemType: "ext4",
});

const app = new cpln.Workload(
  "app",
  {
    gvc: gvc.name,
    type: "stateful",
    identityLink: identity.selfLink,
    containers: [
      {
        name: "app",
        image: "nginx:1.27",
        ports: [{ number: 8080, protocol: "http" }],
        env: [
          { name: "GREETING", value: greeting },
          { name: "DATABASE_URL", value: pulumi.interpolate`cpln://secret/${settings.name}.DATABASE_URL` },
        ],
        volumes: [{ uri: pulumi.interpolate`cpln://volumeset/${data.name}`, path: "/data" }],
      },
    ],
  },
  // The identity must hold `reveal` before the workload reads the secret.
  { dependsOn: [reveal] },
);

const domain = new cpln.Domain("app", {
  name: domainName,
  dnsMode: "cname",
  ports: [{ number: 443, protocol: "http2", routes: [{ prefix: "/", workloadLink: app.selfLink, port: 8080 }] }],
});

export const endpoint = app.status.apply((status) => (status as { endpoint?: string } | undefined)?.endpoint);
export const dnsRecords = domain.status.apply((status) => (status as { dnsConfig?: unknown } | undefined)?.dnsConfig);
export const gvcName = gvc.name;
