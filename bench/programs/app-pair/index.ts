/**
 * The concurrent edit of `bench/app.ts`: two stacks run this program against one existing workload (`pair:workload`
 * in gvc `pair:gvc`, made outside Pulumi with the containers below), both adopting it (`adopt: true`). Each stack then
 * changes one container's `MESSAGE` (`pair:left` in one stack, `pair:right` in the other) and both ups run at once;
 * the server's record afterwards says whether both edits were kept.
 */
import * as pulumi from "@pulumi/pulumi";
import * as cpln from "cpln-pulumi";

const config = new pulumi.Config("pair");

export const selfLink = new cpln.Workload("shared", {
  name: config.require("workload"),
  gvc: config.require("gvc"),
  adopt: true,
  type: "standard",
  containers: [
    {
      name: "left",
      image: "nginx:1.27",
      ports: [{ number: 8080, protocol: "http" }],
      env: [{ name: "MESSAGE", value: config.require("left") }],
    },
    { name: "right", image: "busybox:1.36", env: [{ name: "MESSAGE", value: config.require("right") }] },
  ],
}).selfLink;
