// The official Control Plane CLI (`@controlplane/cli` 3.10.1) on secrets against cpln-local: its create-* commands,
// `secret reveal` (GET .../-reveal), `secret get` (no data), `secret clone` (reveal, then create) and delete.
import { describe, expect, it } from "vitest";
import { officialCli } from "./officialCli.js";

const cli = officialCli();
const { cpln, ok, file, stored, json } = cli;

describe("cpln secret", () => {
  it("create-opaque and create-dictionary store the data; reveal prints it; get never shows it", async () => {
    await ok("secret", "create-opaque", "--name", "token", "--file", file("token.txt", "opaque-value-1"));
    const opaque = await stored("secret", "token");
    // The CLI sends base64 by default (CreateOpaque: encoding base64 unless --encoding plain).
    expect(opaque).toMatchObject({
      type: "opaque",
      data: { payload: Buffer.from("opaque-value-1").toString("base64"), encoding: "base64" },
    });
    expect((await cpln("secret", "reveal", "token", "-o", "smart")).stdout).toContain("opaque-value-1");
    await ok("secret", "create-dictionary", "--name", "env", "--entry", "USER=app", "--entry", "PASS=dict-value-2");
    const revealed = await json<{ type: string; data: Record<string, string> }>("secret", "reveal", "env");
    expect(revealed).toMatchObject({ type: "dictionary", data: { USER: "app", PASS: "dict-value-2" } });
    const got = await ok("secret", "get", "env", "token", "-o", "json");
    expect(got).toContain('"dictionary"');
    expect(got).not.toContain("dict-value-2");
    expect(got).not.toContain(Buffer.from("opaque-value-1").toString("base64"));
  });

  it("create-userpass and create-aws keep their fields; clone copies the revealed data; delete removes", async () => {
    await ok("secret", "create-userpass", "--name", "db", "--username", "app", "--password", "pw-3");
    expect(await stored("secret", "db")).toMatchObject({
      type: "userpass",
      data: { username: "app", password: "pw-3" },
    });
    await ok("secret", "create-aws", "--name", "cloud", "--access-key", "AKIAEXAMPLE", "--secret-key", "aws-4");
    expect(await stored("secret", "cloud")).toMatchObject({
      type: "aws",
      data: { accessKey: "AKIAEXAMPLE", secretKey: "aws-4" },
    });
    await ok("secret", "clone", "db", "--name", "db-copy");
    expect(await stored("secret", "db-copy")).toMatchObject({
      type: "userpass",
      data: { username: "app", password: "pw-3" },
    });
    await ok("secret", "delete", "db-copy");
    expect(await stored("secret", "db-copy")).toBeUndefined();
  });

  it("a create the server refuses exits non-zero with the field and rule, and stores nothing", async () => {
    const refused = await cpln("secret", "create-aws", "--name", "bad", "--access-key", "XYZ", "--secret-key", "s");
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain("AKIA");
    expect(await stored("secret", "bad")).toBeUndefined();
  });
});
