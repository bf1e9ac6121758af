/**
 * A minimal DER encoder for one certificate form: a self-signed Ed25519 CA certificate (X.509 v3, basicConstraints
 * CA, keyUsage keyCertSign and cRLSign). cpln-local answers a cluster's `-cacerts` with one: a well-formed
 * certificate a kubeconfig can carry, of a CA that signs nothing (the emulated cluster has no API server).
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(value.length), value]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 + n, inner);
const octetString = (value: Buffer) => tlv(0x04, value);
const bitString = (value: Buffer, unusedBits = 0) => tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), value]));
const utf8String = (value: string) => tlv(0x0c, Buffer.from(value, "utf8"));
const TRUE = tlv(0x01, Buffer.from([0xff]));

function integer(value: Buffer): Buffer {
  // Positive and minimal: no leading zero bytes, one 0x00 in front of a set high bit.
  let start = 0;
  while (start < value.length - 1 && value[start] === 0 && (value[start + 1] as number) < 0x80) start += 1;
  const body = value.subarray(start);
  return tlv(0x02, (body[0] as number) >= 0x80 ? Buffer.concat([Buffer.from([0]), body]) : body);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split(".").map(Number) as [number, number, ...number[]];
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc % 128];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v % 128));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime before 2050, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

const ED25519 = "1.3.101.112";
const COMMON_NAME = "2.5.4.3";
const BASIC_CONSTRAINTS = "2.5.29.19";
const KEY_USAGE = "2.5.29.15";

/** The Ed25519 key whose 32-byte seed is `seed` (PKCS#8 wrapping of RFC 8410). */
export function ed25519FromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 seed has 32 bytes");
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  return createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" });
}

export interface CaCertificate {
  commonName: string;
  /** 16 bytes or fewer (RFC 5280: at most 20 octets). */
  serial: Buffer;
  notBefore: Date;
  notAfter: Date;
  privateKey: KeyObject;
}

/** The PEM of a self-signed CA certificate. */
export function selfSignedCaPem(ca: CaCertificate): string {
  const algorithm = sequence(oid(ED25519));
  const name = sequence(set(sequence(oid(COMMON_NAME), utf8String(ca.commonName))));
  const spki = createPublicKey(ca.privateKey).export({ type: "spki", format: "der" });
  const extensions = explicit(
    3,
    sequence(
      sequence(oid(BASIC_CONSTRAINTS), TRUE, octetString(sequence(TRUE))),
      // keyCertSign (bit 5) and cRLSign (bit 6): 0b0000_0110, the last bit unused.
      sequence(oid(KEY_USAGE), TRUE, octetString(bitString(Buffer.from([0x06]), 1))),
    ),
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(ca.serial),
    algorithm,
    name,
    sequence(time(ca.notBefore), time(ca.notAfter)),
    name,
    spki,
    extensions,
  );
  const signature = sign(null, tbs, ca.privateKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}
