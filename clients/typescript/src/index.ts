// lendhub's partner REST API for TypeScript: the typed client is generated
// from the served OpenAPI document (src/schema.ts, by openapi-typescript;
// requests by openapi-fetch). What a generator cannot make is here, by hand:
// webhook verification, request signing for refunds, idempotency keys and
// cursor iteration.

import { createHash, createHmac, randomUUID, sign, timingSafeEqual, type KeyObject } from "node:crypto";
import createClient from "openapi-fetch";
import type { paths } from "./schema.ts";

export type { components, paths } from "./schema.ts";

/** The API version this client was generated from. */
export const API_VERSION = "2026-11-25";

export interface Options {
  /** `https://…/partner/v1` (live) or `https://…/sandbox/v1` (the test environment). */
  baseUrl: string;
  /** A secret API key of that environment: `sk_live_…` or `sk_test_…`. */
  apiKey: string;
  /** Pins every request to an API version (`Lendhub-Version`); the client's own by default. */
  version?: string;
}

/** A client for one environment: `client.POST("/applications", { body, params })`. */
export function createLendhub({ baseUrl, apiKey, version = API_VERSION }: Options) {
  const client = createClient<paths>({ baseUrl });
  client.use({
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${apiKey}`);
      request.headers.set("Lendhub-Version", version);
      return request;
    },
  });
  return client;
}

/**
 * A fresh `Idempotency-Key`. Keep it with the operation it guards and send
 * the same key when you retry that operation: lendhub answers the retry
 * with the first answer instead of acting twice.
 */
export function idempotencyKey(prefix = "lh"): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Whether a webhook delivery is lendhub's: `header` is its
 * `Service-Signature`, `body` the raw bytes received (before any JSON
 * parsing), `secret` the endpoint's whole `whsec_…` secret. A timestamp more
 * than `tolerance` seconds from `now` is refused, so a captured delivery
 * cannot be replayed later.
 */
export function verifyWebhook(
  secret: string,
  header: string,
  body: string | Uint8Array,
  { tolerance = 300, now = Date.now() / 1000 }: { tolerance?: number; now?: number } = {},
): boolean {
  const items = header.split(",").map((item) => item.split("=", 2) as [string, string | undefined]);
  const t = items.find(([k]) => k === "t")?.[1];
  if (t === undefined || !/^\d+$/.test(t) || Math.abs(now - Number(t)) > tolerance) {
    return false;
  }
  const expected = createHmac("sha256", secret).update(`${t}.`).update(body).digest();
  return items.some(
    ([k, v]) => k === "v1" && v !== undefined && /^[0-9a-f]{64}$/.test(v) && timingSafeEqual(expected, Buffer.from(v, "hex")),
  );
}

export interface SignedRequest {
  /** The Ed25519 private key whose public half is registered (`lendhub partner request-keys add`). */
  privateKey: KeyObject;
  /** The registered key's id, `rsk_…`. */
  keyId: string;
  method: string;
  /** The request's path, from the mount: `/sandbox/v1/payments/pay_…/refund`. */
  path: string;
  idempotencyKey: string;
  /** The exact body bytes sent. */
  body: string;
  /** Unix seconds; now by default. */
  timestamp?: number;
}

/** The `Service-Request-Signature` header a money-moving request carries. */
export function signRequest({ privateKey, keyId, method, path, idempotencyKey, body, timestamp }: SignedRequest): string {
  const t = timestamp ?? Math.floor(Date.now() / 1000);
  const digest = createHash("sha256").update(body).digest("hex");
  const canonical = ["lendhub-request-v1", String(t), method.toUpperCase(), path, idempotencyKey, digest].join("\n");
  const signature = sign(null, Buffer.from(canonical), privateKey).toString("base64url");
  return `t=${t},kid=${keyId},ed25519=${signature}`;
}

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

/**
 * Every item of a list, page by page:
 * `for await (const app of paginate((cursor) => client.GET("/applications", { params: { query: { cursor } } })))`.
 * A page that answers an error throws it.
 */
export async function* paginate<T>(
  page: (cursor: string | undefined) => Promise<{ data?: Page<T>; error?: unknown }>,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const { data, error } = await page(cursor);
    if (data === undefined) {
      throw new LendhubError(error);
    }
    yield* data.data;
    if (!data.has_more || !data.next_cursor) {
      return;
    }
    cursor = data.next_cursor;
  }
}

/** An answer in lendhub's error envelope, as an exception. */
export class LendhubError extends Error {
  readonly body: unknown;
  constructor(body: unknown) {
    const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    super(error ? `${error.code}: ${error.message}` : "lendhub answered an error");
    this.body = body;
  }
}
