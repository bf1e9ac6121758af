"""The app example (../index.ts) in Python, on the native plugin's generated SDK (pulumi_cpln_native).

Control Plane's quickstart as one program: a gvc in two locations, a dictionary secret, an identity that a policy
lets reveal it, a volume set, a stateful workload that mounts the volume set and reads the secret as env, and a
domain routed to the workload. The outputs: the workload's endpoint and the DNS records to create for the domain.
"""

import pulumi
import pulumi_cpln_native as cpln

config = pulumi.Config("app")
# The edit the tests make: one container's environment variable.
greeting = config.get("greeting") or "hello"
domain_name = config.get("domain") or "app.example.com"

gvc = cpln.Gvc(
    "app",
    description="The app's global virtual cloud",
    static_placement={"location_links": ["//location/aws-eu-central-1", "//location/aws-us-west-2"]},
)

settings = cpln.Secret(
    "app-settings",
    type=cpln.Type.DICTIONARY,
    data={"DATABASE_URL": "postgres://app@db.internal:5432/app", "API_KEY": "example-key-not-real"},
)

identity = cpln.Identity("app", gvc=gvc.name, description="What the app's workload runs as")

reveal = cpln.Policy(
    "app-reveal",
    description="The app's identity may reveal its settings",
    target_kind=cpln.PolicyTargetKind.SECRET,
    target_links=[settings.self_link],
    bindings=[{"permissions": ["reveal"], "principal_links": [identity.self_link]}],
)

data = cpln.VolumeSet(
    "app-data",
    gvc=gvc.name,
    initial_capacity=10,
    performance_class=cpln.VolumeSetPerformanceClass.GENERAL_PURPOSE_SSD,
    file_system_type=cpln.VolumeSetFileSystemType.EXT4,
)

app = cpln.Workload(
    "app",
    gvc=gvc.name,
    type=cpln.WorkloadType.STATEFUL,
    identity_link=identity.self_link,
    containers=[
        {
            "name": "app",
            "image": "nginx:1.27",
            "ports": [{"number": 8080, "protocol": cpln.ContainerPortProtocol.HTTP}],
            "env": [
                {"name": "GREETING", "value": greeting},
                {
                    "name": "DATABASE_URL",
                    "value": pulumi.Output.concat("cpln://secret/", settings.name, ".DATABASE_URL"),
                },
            ],
            "volumes": [{"uri": pulumi.Output.concat("cpln://volumeset/", data.name), "path": "/data"}],
        }
    ],
    # The identity must hold `reveal` before the workload reads the secret.
    opts=pulumi.ResourceOptions(depends_on=[reveal]),
)

domain = cpln.Domain(
    "app",
    name=domain_name,
    dns_mode=cpln.DnsMode.CNAME,
    ports=[
        {
            "number": 443,
            "protocol": cpln.PortProtocol.HTTP2,
            "routes": [{"prefix": "/", "workload_link": app.self_link, "port": 8080}],
        }
    ],
)

pulumi.export("endpoint", app.status.apply(lambda status: status.endpoint if status else None))
pulumi.export("dnsRecords", domain.status.apply(lambda status: status.dns_config if status else None))
pulumi.export("gvcName", gvc.name)
