// Encryption of secret values in the runner's state file, modelled on Pulumi's passphrase secrets provider:
// AES-256-GCM with a key derived by scrypt from PULUMI_CONFIG_PASSPHRASE (or the file PULUMI_CONFIG_PASSPHRASE_FILE
// names) and a per-stack salt. Without a passphrase, a random key is generated once and kept beside the state file
// (mode 0600); the runner says so when it creates it (docs/runner.md).
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export type SecretsProviderState =
  { type: "passphrase"; salt: string; check: string } | { type: "keyfile"; file: string; check: string };

const checkPlaintext = "cpln-pulumi offline runner";
const version = "v1";

export class SecretCrypter {
  /**
   * Ciphertexts by location (e.g. `config:cpln:token`): an unchanged secret keeps its ciphertext, so a run that
   * changes nothing rewrites nothing (Pulumi's caching crypter does the same).
   */
  private readonly cache = new Map<string, { plaintext: string; ciphertext: string }>();

  private constructor(
    private readonly key: Buffer,
    readonly state: SecretsProviderState,
  ) {}

  /**
   * Opens the crypter recorded in a state file, or creates one for a new state file. `env` supplies
   * PULUMI_CONFIG_PASSPHRASE (Pulumi allows an empty passphrase; an unset one selects the key file).
   */
  static open(
    stateFile: string,
    existing: SecretsProviderState | undefined,
    env: NodeJS.ProcessEnv,
    notice: (text: string) => void = () => undefined,
  ): SecretCrypter {
    const passphrase = passphraseFrom(env);
    if (!existing) {
      if (passphrase !== undefined) {
        const salt = crypto.randomBytes(16).toString("base64");
        const key = deriveKey(passphrase, salt);
        return new SecretCrypter(key, { type: "passphrase", salt, check: encryptWith(key, checkPlaintext) });
      }
      const file = `${path.basename(stateFile)}.key`;
      const keyFile = path.join(path.dirname(stateFile), file);
      const created = !fs.existsSync(keyFile);
      const key = createKeyFile(keyFile);
      if (created) {
        notice(
          `offline runner: PULUMI_CONFIG_PASSPHRASE is not set: the stack's secrets are encrypted with a new random key ` +
            `kept in ${keyFile} (mode 0600). Keep it with the state file; anyone with both can read the secrets. ` +
            "Set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) before the first run to use a passphrase.",
        );
      }
      return new SecretCrypter(key, { type: "keyfile", file, check: encryptWith(key, checkPlaintext) });
    }
    let key: Buffer;
    if (existing.type === "passphrase") {
      if (passphrase === undefined) {
        throw new Error(
          `${stateFile} encrypts its secrets with a passphrase: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE)`,
        );
      }
      key = deriveKey(passphrase, existing.salt);
    } else {
      const keyFile = path.join(path.dirname(stateFile), existing.file);
      if (!fs.existsSync(keyFile)) throw new Error(`${stateFile}: the key file ${keyFile} is missing`);
      key = Buffer.from(fs.readFileSync(keyFile, "utf8").trim(), "base64");
    }
    let verified: boolean;
    try {
      verified = decryptWith(key, existing.check) === checkPlaintext;
    } catch {
      verified = false;
    }
    if (!verified) {
      throw new Error(
        existing.type === "passphrase"
          ? `${stateFile}: incorrect PULUMI_CONFIG_PASSPHRASE`
          : `${stateFile}: the key file does not match`,
      );
    }
    return new SecretCrypter(key, existing);
  }

  /** A key that is never stored, for a preview of a stack that has no state yet (nothing is written). */
  static ephemeral(): SecretCrypter {
    const key = crypto.randomBytes(32);
    return new SecretCrypter(key, { type: "passphrase", salt: "", check: encryptWith(key, checkPlaintext) });
  }

  encrypt(plaintext: string, location?: string): string {
    const cached = location === undefined ? undefined : this.cache.get(location);
    if (cached && cached.plaintext === plaintext) return cached.ciphertext;
    const ciphertext = encryptWith(this.key, plaintext);
    if (location !== undefined) this.cache.set(location, { plaintext, ciphertext });
    return ciphertext;
  }

  decrypt(ciphertext: string, location?: string): string {
    const plaintext = decryptWith(this.key, ciphertext);
    if (location !== undefined) this.cache.set(location, { plaintext, ciphertext });
    return plaintext;
  }
}

/** PULUMI_CONFIG_PASSPHRASE, else the contents of the file PULUMI_CONFIG_PASSPHRASE_FILE names (as Pulumi reads them). */
function passphraseFrom(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PULUMI_CONFIG_PASSPHRASE !== undefined) return env.PULUMI_CONFIG_PASSPHRASE;
  const file = env.PULUMI_CONFIG_PASSPHRASE_FILE;
  if (!file) return undefined;
  try {
    return fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new Error(
      `PULUMI_CONFIG_PASSPHRASE_FILE ${file}: cannot read it (${(error as NodeJS.ErrnoException).code})`,
      {
        cause: error,
      },
    );
  }
}

function deriveKey(passphrase: string, salt: string): Buffer {
  return crypto.scryptSync(passphrase, Buffer.from(salt, "base64"), 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 << 20 });
}

function createKeyFile(file: string): Buffer {
  const key = crypto.randomBytes(32);
  try {
    // "wx": never overwrite a key that may still encrypt another copy of the state.
    fs.writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64");
  }
}

function encryptWith(key: Buffer, plaintext: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [version, iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}

function decryptWith(key: Buffer, ciphertext: string): string {
  const [v, iv, tag, body] = ciphertext.split(":");
  if (v !== version || !iv || !tag || body === undefined) throw new Error("malformed ciphertext");
  const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
}
