/**
 * `/storage/v1` driven by the real supabase-js over HTTP, on embedded Postgres and on a PostgreSQL
 * server: the portal's avatar call (upload to `{userId}/{userId}.png` with upsert, then the public
 * URL), the avatars bucket's policies (only `{uid}/{uid}.{png,jpg,jpeg,webp}`, of a declared image
 * type), types and size limit, refused tokens and names, listing under the caller's policies, and
 * persistence across a restart. An upload is pinned to storage-api's order and statements
 * (src/storage/uploader.ts): the bucket's type, then a raw body's declared length, before the
 * permission test (`canUpload`: the row written as the caller and rolled back, with the declared
 * type and length as metadata; a plain INSERT, or for an upsert INSERT … ON CONFLICT DO UPDATE …
 * RETURNING *); then the bytes and their size; then the row written by Storage itself. A drop-box
 * bucket with policies of the test's own shows what the avatars' policies cannot. A private
 * vault bucket, also the test's own, pins signed URLs (signing as the caller, the token's checks,
 * the signed download and its attachment) and `remove` under delete policies. Errors are pinned as
 * Supabase Storage answers them: HTTP 400 with the meaningful status in `statusCode`, and no `code`
 * (the routes' errorSchema).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSigner } from "../../src/jwt.ts";
import { startStack, type Stack } from "../../src/stack.ts";
import { BACKENDS, startTestStack, type TestStack } from "../../src/harness.ts";
import { JPEG as JPEG_BYTES, png as onePixelPng } from "../../../../tests/support/images";

const ADA = { id: "00000000-0000-4000-8000-0000000000ad", email: "ada.avatar@example.com" };
const BEN = { id: "00000000-0000-4000-8000-0000000000be", email: "ben.avatar@example.com" };
const CAL = { id: "00000000-0000-4000-8000-0000000000ca", email: "cal.avatar@example.com" };
const TWO_MIB = 2 * 1024 * 1024;

/** A valid 1×1 PNG of one colour, as the bytes supabase-js uploads. */
const png = (rgb: [number, number, number]) => new Uint8Array(onePixelPng(rgb));

/** A 1×1 JPEG and a 1×1 WebP (lossy), one violet pixel each, as an image encoder wrote them. */
const JPEG = new Uint8Array(JPEG_BYTES);
const WEBP = new Uint8Array(
  Buffer.from("UklGRjgAAABXRUJQVlA4ICwAAACQAQCdASoBAAEAAUAmJaACdLoAA5gA/u7T3/7nA/7nA/7nA/jr/FAKRwHgAA==", "base64"),
);

const blob = (bytes: Uint8Array, type: string) => new Blob([bytes as BlobPart], { type });
const md5 = (bytes: Uint8Array) => `"${createHash("md5").update(bytes).digest("hex")}"`;

/** Every file under a folder, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

/** A supabase-js client as the browser makes it, signed in with `token` when given. */
function clientOf(stack: Stack, token?: string): SupabaseClient {
  return createClient(stack.url, stack.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
  });
}

/** An access token as Supabase Auth issues it, signed by the stack's key. */
function tokenOf(stack: Stack, user: { id: string; email: string }, claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return stack.signer.sign({
    sub: user.id,
    role: "authenticated",
    aud: "authenticated",
    email: user.email,
    iat: now,
    exp: now + 3600,
    ...claims,
  });
}

async function publicGet(url: string, method = "GET") {
  const answer = await fetch(url, { method });
  const header = (name: string) => answer.headers.get(name);
  return { status: answer.status, header, bytes: new Uint8Array(await answer.arrayBuffer()) };
}

describe.each(BACKENDS)("storage on $name", (backend) => {
  let stack: TestStack;
  let ada: SupabaseClient;
  let ben: SupabaseClient;
  let cal: SupabaseClient;
  const red = png([220, 38, 38]);
  const blue = png([37, 99, 235]);
  const avatar = `${ADA.id}/${ADA.id}.png`;
  /** A page, not an image: what an avatar must never be served as. */
  const page = new TextEncoder().encode("<!doctype html><script>alert(document.cookie)</script>");
  const rlsRefusal = {
    name: "StorageApiError",
    status: 400,
    statusCode: "403",
    message: "new row violates row-level security policy",
  };

  const objectRows = async (name: string, bucket = "avatars") =>
    (
      await stack.db.query<{ id: string; owner: string | null; owner_id: string | null; metadata: unknown }>(
        "select id, owner, owner_id, metadata from storage.objects where bucket_id = $1 and name = $2",
        [bucket, name],
      )
    ).rows;
  const storedFiles = () => filesUnder(join(stack.dataDir, "storage"));
  const publicUrl = (name: string) => `${stack.url}/storage/v1/object/public/avatars/${name}`;
  /** A raw request as storage-js makes an upload, for what supabase-js would not send. */
  const rawUpload = (
    path: string,
    token: string,
    body: BodyInit,
    type = "image/png",
    headers: Record<string, string> = {},
  ) =>
    fetch(`${stack.url}/storage/v1/object/${path}`, {
      method: "POST",
      headers: { apikey: stack.anonKey, authorization: `Bearer ${token}`, "content-type": type, ...headers },
      body,
    });
  /**
   * An upload that declares `length` bytes but sends only its first KiB, answered with what the
   * server says meanwhile: a server that reads the body before answering never answers.
   */
  const declaredUpload = (path: string, token: string, length: number, type = "image/png") =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const url = new URL(`/storage/v1/object/${path}`, stack.url);
      url.hostname = "127.0.0.1";
      const headers = {
        apikey: stack.anonKey,
        authorization: `Bearer ${token}`,
        "content-type": type,
        "content-length": String(length),
      };
      const request = httpRequest(url, { method: "POST", headers }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => {
          clearTimeout(timer);
          request.destroy();
          resolve({ status: response.statusCode!, body: JSON.parse(text) });
        });
      });
      const timer = setTimeout(() => {
        request.destroy();
        reject(new Error("no answer before the body was sent"));
      }, 5_000);
      request.on("error", reject);
      request.write(Buffer.alloc(1024));
    });

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false });
    await stack.db.exec(`
      insert into auth.users (id, email)
        values ('${ADA.id}', '${ADA.email}'), ('${BEN.id}', '${BEN.email}'), ('${CAL.id}', '${CAL.email}');
      insert into storage.buckets (id, name, public) values ('documents', 'documents', false);
      insert into storage.objects (bucket_id, name, owner_id) values ('documents', '${ADA.id}/contract.png', '${ADA.id}');

      -- A drop box: users add files of at most 1000 bytes (as declared) to their folder, and see none.
      insert into storage.buckets (id, name, public) values ('dropbox', 'dropbox', false);
      create policy "Users drop small files into their folder" on storage.objects for insert to authenticated
        with check (
          bucket_id = 'dropbox' and (storage.foldername(name))[1] = (select auth.uid())::text
          and (metadata ->> 'contentLength')::bigint <= 1000
        );
      create policy "Users replace their dropped files" on storage.objects for update to authenticated
        using (bucket_id = 'dropbox' and owner_id = (select auth.uid())::text)
        with check (bucket_id = 'dropbox' and owner_id = (select auth.uid())::text);
    `);
    ada = clientOf(stack, tokenOf(stack, ADA));
    ben = clientOf(stack, tokenOf(stack, BEN));
    cal = clientOf(stack, tokenOf(stack, CAL));
  }, 60_000);
  afterAll(() => stack?.stop());

  it("stores the portal's avatar upload and serves it at its public URL", async () => {
    const avatars = ada.storage.from("avatars");
    const { data, error } = await avatars.upload(avatar, blob(red, "image/png"), { upsert: true });
    expect(error).toBeNull();

    const rows = await objectRows(avatar);
    expect(rows).toEqual([
      {
        id: data!.id,
        owner: ADA.id,
        owner_id: ADA.id,
        metadata: expect.objectContaining({
          mimetype: "image/png",
          size: red.byteLength,
          contentLength: red.byteLength,
          cacheControl: "max-age=3600",
          eTag: md5(red),
        }),
      },
    ]);
    expect(data).toEqual({ path: avatar, id: rows[0]!.id, fullPath: `avatars/${avatar}` });
    expect(readFileSync(join(stack.dataDir, "storage", "avatars", avatar))).toEqual(Buffer.from(red));

    const url = avatars.getPublicUrl(avatar).data.publicUrl;
    expect(url).toBe(publicUrl(avatar));
    const answer = await publicGet(url);
    expect(answer.status).toBe(200);
    expect(answer.bytes).toEqual(red);
    expect(
      ["content-type", "content-length", "cache-control", "etag", "x-content-type-options", "x-robots-tag"].map(
        answer.header,
      ),
    ).toEqual(["image/png", String(red.byteLength), "max-age=3600", md5(red), "nosniff", "none"]);
    const head = await publicGet(url, "HEAD");
    expect([head.status, head.header("content-length"), head.bytes.byteLength]).toEqual([
      200,
      String(red.byteLength),
      0,
    ]);
  });

  it("replaces the avatar on a second upload with upsert, keeping its row", async () => {
    const [before] = await objectRows(avatar);
    const { data, error } = await ada.storage.from("avatars").upload(avatar, blob(blue, "image/png"), { upsert: true });
    expect(error).toBeNull();
    expect(data!.id).toBe(before!.id);
    const answer = await publicGet(publicUrl(avatar));
    expect([answer.bytes, answer.header("etag")]).toEqual([blue, md5(blue)]);
    expect(await objectRows(avatar)).toHaveLength(1);
    expect(storedFiles()).toEqual([`avatars/${avatar}`]);
  });

  it("replaces the own avatar with x-upsert, type and all, as storage-api's upsertObject (ON CONFLICT DO UPDATE … RETURNING *, which the select policy admits)", async () => {
    const avatars = ada.storage.from("avatars");
    const [before] = await objectRows(avatar);
    for (const [bytes, type] of [
      [WEBP, "image/webp"],
      [blue, "image/png"],
    ] as const) {
      const { data, error } = await avatars.upload(avatar, blob(bytes, type), { upsert: true });
      expect(error).toBeNull();
      expect(data!.id).toBe(before!.id);
      expect((await objectRows(avatar))[0]).toMatchObject({ metadata: { mimetype: type, size: bytes.byteLength } });
      const answer = await publicGet(publicUrl(avatar));
      expect([answer.status, answer.header("content-type"), answer.bytes]).toEqual([200, type, bytes]);
    }
  });

  it("refuses a second upload without upsert (409 Duplicate, KeyAlreadyExists as storage-api's createObject answers) and keeps the bytes", async () => {
    const { data, error } = await ada.storage.from("avatars").upload(avatar, blob(red, "image/png"));
    expect(data).toBeNull();
    expect(error).toMatchObject({
      name: "StorageApiError",
      status: 400,
      statusCode: "409",
      message: "The resource already exists",
    });
    const form = new FormData();
    form.append("cacheControl", "3600");
    form.append("", blob(red, "image/png"));
    const raw = await rawUpload(`avatars/${avatar}`, tokenOf(stack, ADA), form);
    expect([raw.status, await raw.json()]).toEqual([
      400,
      { statusCode: "409", error: "Duplicate", message: "The resource already exists" },
    ]);
    expect((await publicGet(publicUrl(avatar))).bytes).toEqual(blue);
  });

  it("updates the avatar with PUT (supabase-js update), as its owner", async () => {
    const avatars = ada.storage.from("avatars");
    for (const bytes of [red, blue]) {
      const { data, error } = await avatars.update(avatar, blob(bytes, "image/png"));
      expect(error).toBeNull();
      expect(data).toMatchObject({ path: avatar, fullPath: `avatars/${avatar}` });
      expect((await publicGet(publicUrl(avatar))).bytes).toEqual(bytes);
    }
  });

  it("accepts JPEG and WebP avatars and serves them with their types", async () => {
    const avatars = ada.storage.from("avatars");
    for (const [name, bytes, type] of [
      [`${ADA.id}/${ADA.id}.jpg`, JPEG, "image/jpeg"],
      [`${ADA.id}/${ADA.id}.webp`, WEBP, "image/webp"],
    ] as const) {
      expect((await avatars.upload(name, blob(bytes, type))).error).toBeNull();
      const answer = await publicGet(publicUrl(name));
      expect([answer.status, answer.header("content-type"), answer.bytes]).toEqual([200, type, bytes]);
    }
  });

  it("the permission check sees the declared content type, as storage-api's canUpload passes metadata.mimetype: image/png/x passes the bucket, not the policy", async () => {
    const files = storedFiles();
    const name = `${ADA.id}/${ADA.id}.jpeg`;
    // validateMimeType compares type and subtype only: the bucket's image/png admits image/png/x.
    const { error } = await ada.storage.from("avatars").upload(name, blob(page, "image/png/x"));
    expect(error).toMatchObject(rlsRefusal);
    const raw = await rawUpload(`avatars/${name}`, tokenOf(stack, ADA), page as BodyInit, "image/png/x");
    expect([raw.status, await raw.json()]).toEqual([
      400,
      {
        statusCode: "403",
        error: "Unauthorized",
        message: "new row violates row-level security policy",
      },
    ]);
    expect(await objectRows(name)).toEqual([]);
    expect(storedFiles()).toEqual(files);

    // The same bytes declared image/png pass: the policy judges the declaration, never the bytes.
    expect((await ada.storage.from("avatars").upload(name, blob(page, "image/png"))).error).toBeNull();
    const answer = await publicGet(publicUrl(name));
    expect([answer.header("content-type"), answer.header("x-content-type-options")]).toEqual(["image/png", "nosniff"]);
  });

  it("refuses any other name, in the user's own folder too: the policies admit only {uid}/{uid}.{png,jpg,jpeg,webp}", async () => {
    const files = storedFiles();
    const avatars = ada.storage.from("avatars");
    for (const name of [
      `${ADA.id}/other.png`,
      `${ADA.id}/${ADA.id}.gif`,
      `${ADA.id}/${ADA.id}.PNG`,
      `${ADA.id}/${ADA.id}.png.png`,
      `${ADA.id}/x/${ADA.id}.png`,
      `${ADA.id}.png`,
    ]) {
      expect((await avatars.upload(name, blob(red, "image/png"))).error).toMatchObject(rlsRefusal);
      expect((await avatars.upload(name, blob(red, "image/png"), { upsert: true })).error).toMatchObject(rlsRefusal);
      expect(await objectRows(name)).toEqual([]);
    }
    expect(storedFiles()).toEqual(files);
  });

  it("refuses writes to another user's avatar (403), leaving their file and no new row", async () => {
    const theirs = `${BEN.id}/${BEN.id}.png`;
    expect(
      (await ben.storage.from("avatars").upload(theirs, blob(blue, "image/png"), { upsert: true })).error,
    ).toBeNull();
    const files = storedFiles();

    const intruder = ada.storage.from("avatars");
    expect((await intruder.upload(theirs, blob(red, "image/png"), { upsert: true })).error).toMatchObject(rlsRefusal);
    expect((await intruder.update(theirs, blob(red, "image/png"))).error).toMatchObject(rlsRefusal);
    // Not 409: the insert policy refuses the row before the unique index sees it.
    expect((await intruder.upload(theirs, blob(red, "image/png"))).error).toMatchObject(rlsRefusal);
    const planted = `${BEN.id}/${BEN.id}.webp`;
    expect((await intruder.upload(planted, blob(WEBP, "image/webp"))).error).toMatchObject(rlsRefusal);

    expect((await publicGet(publicUrl(theirs))).bytes).toEqual(blue);
    expect((await objectRows(theirs))[0]).toMatchObject({ owner_id: BEN.id });
    expect(await objectRows(planted)).toEqual([]);
    expect(storedFiles()).toEqual(files);
  });

  it("refuses an upload without a signed-in user (anon key only)", async () => {
    const name = `${CAL.id}/${CAL.id}.jpg`;
    const { error } = await clientOf(stack).storage.from("avatars").upload(name, blob(JPEG, "image/jpeg"));
    expect(error).toMatchObject(rlsRefusal);
    expect([await objectRows(name), existsSync(join(stack.dataDir, "storage", "avatars", name))]).toEqual([[], false]);
  });

  it("refuses a file that is not PNG, JPEG or WebP (415) before any permission test, as fileUploadFromRequest runs before canUpload", async () => {
    const files = storedFiles();
    const notes = blob(Buffer.from("hello"), "text/plain");
    const refused = { status: 400, statusCode: "415", message: "mime type text/plain is not supported" };
    // Onto the own existing WebP without upsert (the permission test would answer 409), into
    // another user's avatar and without a user (it would answer 403): the type is refused first.
    const ownWebp = `${ADA.id}/${ADA.id}.webp`;
    expect((await ada.storage.from("avatars").upload(ownWebp, notes)).error).toMatchObject(refused);
    expect((await ada.storage.from("avatars").upload(`${BEN.id}/${BEN.id}.png`, notes)).error).toMatchObject(refused);
    expect((await clientOf(stack).storage.from("avatars").upload(avatar, notes)).error).toMatchObject(refused);
    // A string body goes raw, with storage-js's default content type; Storage checks it as sent.
    expect((await ada.storage.from("avatars").upload(ownWebp, "hello")).error).toMatchObject({
      statusCode: "415",
      message: "mime type text/plain;charset=UTF-8 is not supported",
    });
    expect((await publicGet(publicUrl(ownWebp))).bytes).toEqual(WEBP);
    expect((await publicGet(publicUrl(`${BEN.id}/${BEN.id}.png`))).bytes).toEqual(blue);
    expect(storedFiles()).toEqual(files);
  });

  it("accepts exactly 2 MiB and refuses one byte more (413), storing nothing", async () => {
    const avatars = cal.storage.from("avatars");
    const exact = new Uint8Array(TWO_MIB);
    exact.set(red);
    expect((await avatars.upload(`${CAL.id}/${CAL.id}.png`, blob(exact, "image/png"))).error).toBeNull();
    expect((await objectRows(`${CAL.id}/${CAL.id}.png`))[0]).toMatchObject({ metadata: { size: TWO_MIB } });

    const files = storedFiles();
    const name = `${CAL.id}/${CAL.id}.webp`;
    const huge = new Uint8Array(TWO_MIB + 1);
    huge.set(red);
    const tooLarge = {
      status: 400,
      statusCode: "413",
      message: "The object exceeded the maximum allowed size",
    };
    // A form's file is cut off at the limit as it is read, after the permission test.
    expect((await avatars.upload(name, blob(huge, "image/png"))).error).toMatchObject(tooLarge);
    expect((await ada.storage.from("avatars").upload(name, blob(huge, "image/png"))).error).toMatchObject(rlsRefusal);
    // A raw body streamed without a length is cut off at the limit too. (storage-api has no
    // truncation signal for it, uploader.ts: `isTruncated = () => false`; the stand-in keeps the limit.)
    const streamed = await fetch(`${stack.url}/storage/v1/object/avatars/${name}`, {
      method: "POST",
      headers: { apikey: stack.anonKey, authorization: `Bearer ${tokenOf(stack, CAL)}`, "content-type": "image/png" },
      body: new Blob([huge as BlobPart]).stream(),
      duplex: "half",
    } as RequestInit);
    expect([streamed.status, (await streamed.json()).statusCode]).toEqual([400, "413"]);
    expect(await objectRows(name)).toEqual([]);
    expect(storedFiles()).toEqual(files);
  });

  it("refuses a raw body declared larger than the limit (413) before reading it, as fileUploadFromRequest checks Content-Length after the type and before canUpload", async () => {
    const files = storedFiles();
    const name = `${CAL.id}/${CAL.id}.webp`;
    const tooLarge = {
      statusCode: "413",
      error: "Payload too large",
      message: "The object exceeded the maximum allowed size",
    };
    expect(await declaredUpload(`avatars/${name}`, tokenOf(stack, CAL), TWO_MIB + 1)).toEqual({
      status: 400,
      body: tooLarge,
    });
    // Before the permission test: 413, not 403, into another user's avatar.
    expect(await declaredUpload(`avatars/${name}`, tokenOf(stack, ADA), TWO_MIB + 1)).toEqual({
      status: 400,
      body: tooLarge,
    });
    // After the type: 415 for a text file of any size.
    expect(await declaredUpload(`avatars/${name}`, tokenOf(stack, CAL), TWO_MIB + 1, "text/plain")).toMatchObject({
      status: 400,
      body: { statusCode: "415" },
    });
    expect(await objectRows(name)).toEqual([]);
    expect(storedFiles()).toEqual(files);
  });

  it("needs only the insert policy for a plain upload (storage-api's createObject has no RETURNING, completeUpload writes as its superuser), and the select policy too for an upsert (upsertObject … RETURNING *)", async () => {
    const token = tokenOf(stack, ADA);
    const name = `${ADA.id}/note.txt`;
    const note = new Uint8Array(600).fill(0x61);
    const plain = await rawUpload(`dropbox/${name}`, token, note as BodyInit, "text/plain");
    expect([plain.status, await plain.json()]).toEqual([200, { Id: expect.any(String), Key: `dropbox/${name}` }]);
    expect(await objectRows(name, "dropbox")).toEqual([
      {
        id: expect.any(String),
        owner: ADA.id,
        owner_id: ADA.id,
        metadata: expect.objectContaining({ size: 600, mimetype: "text/plain", eTag: md5(note) }),
      },
    ]);

    const upsert = { "x-upsert": "true" };
    const again = await rawUpload(`dropbox/${name}`, token, note as BodyInit, "text/plain", upsert);
    expect([again.status, (await again.json()).statusCode]).toEqual([400, "403"]);
    const fresh = `${ADA.id}/fresh.txt`;
    const first = await rawUpload(`dropbox/${fresh}`, token, note as BodyInit, "text/plain", upsert);
    expect([first.status, (await first.json()).statusCode]).toEqual([400, "403"]);
    expect(await objectRows(fresh, "dropbox")).toEqual([]);

    await stack.db.exec(`create policy "Users see their dropped files" on storage.objects for select
      to authenticated using (bucket_id = 'dropbox' and owner_id = (select auth.uid())::text)`);
    const shorter = note.subarray(0, 500);
    const replaced = await rawUpload(`dropbox/${name}`, token, shorter as BodyInit, "text/plain", upsert);
    expect(replaced.status).toBe(200);
    expect((await objectRows(name, "dropbox"))[0]).toMatchObject({ metadata: { size: 500 } });
  });

  it("the permission check sees the declared length, as storage-api's canUpload passes metadata.contentLength: the Content-Length, for a form the whole body's", async () => {
    const token = tokenOf(stack, ADA);
    const bytes = new Uint8Array(900).fill(0x62);
    const raw = await rawUpload(`dropbox/${ADA.id}/raw.txt`, token, bytes as BodyInit, "text/plain");
    expect(raw.status).toBe(200);
    const longer = await rawUpload(`dropbox/${ADA.id}/long.txt`, token, new Uint8Array(1001) as BodyInit, "text/plain");
    expect([longer.status, (await longer.json()).statusCode]).toEqual([400, "403"]);
    // The same 900 bytes in a form: the body, fields and boundaries included, is over 1000.
    const dropbox = ada.storage.from("dropbox");
    expect((await dropbox.upload(`${ADA.id}/form.txt`, blob(bytes, "text/plain"))).error).toMatchObject(rlsRefusal);
    // 100 bytes in a form are under 1000 all told.
    expect((await dropbox.upload(`${ADA.id}/small.txt`, blob(bytes.subarray(0, 100), "text/plain"))).error).toBeNull();
    const sizes = async (name: string) =>
      (await objectRows(`${ADA.id}/${name}`, "dropbox")).map((row) => (row.metadata as { size: number }).size);
    expect([
      await sizes("raw.txt"),
      await sizes("long.txt"),
      await sizes("form.txt"),
      await sizes("small.txt"),
    ]).toEqual([[900], [], [], [100]]);
  });

  it("refuses forged and expired tokens with Storage's messages, storing nothing", async () => {
    const files = storedFiles();
    const name = `${CAL.id}/${CAL.id}.jpg`;
    const forged = createSigner().sign({ sub: CAL.id, role: "authenticated", exp: Math.floor(Date.now() / 1000) + 60 });
    const expired = tokenOf(stack, CAL, { exp: Math.floor(Date.now() / 1000) - 10 });
    for (const [token, message] of [
      [forged, "signature verification failed"],
      [expired, '"exp" claim timestamp check failed'],
      ["not-a-token", "Invalid Compact JWS"],
    ]) {
      const { error } = await clientOf(stack, token).storage.from("avatars").upload(name, blob(JPEG, "image/jpeg"));
      expect(error).toMatchObject({ status: 400, statusCode: "403", message });
    }
    expect(await objectRows(name)).toEqual([]);
    expect(storedFiles()).toEqual(files);
  });

  it("answers Storage's not-found for a missing object, a private bucket and an unknown route", async () => {
    const missing = await fetch(publicUrl(`${ADA.id}/missing.png`));
    expect([missing.status, await missing.json()]).toEqual([
      400,
      { statusCode: "404", error: "not_found", message: "Object not found" },
    ]);
    const { error } = await ada.storage.from("avatars").download(`${ADA.id}/missing.png`);
    expect(error).not.toBeNull();

    const notPublic = await fetch(`${stack.url}/storage/v1/object/public/documents/${ADA.id}/contract.png`);
    expect([notPublic.status, await notPublic.json()]).toEqual([
      400,
      { statusCode: "404", error: "Bucket not found", message: "Bucket not found" },
    ]);
    const unknown = await ada.storage.from("photos").upload(`${ADA.id}/a.png`, blob(red, "image/png"));
    expect(unknown.error).toMatchObject({ status: 400, statusCode: "404", message: "Bucket not found" });

    const route = await fetch(`${stack.url}/storage/v1/version`, { headers: { apikey: stack.anonKey } });
    expect([route.status, await route.json()]).toEqual([
      404,
      { statusCode: 404, error: "Not Found", message: "Route GET:/version not found" },
    ]);
  });

  it("routes as storage-api's router does (find-my-way: a route's own word before a bucket name): the routes not implemented here answer 501 NotImplemented naming the route, and write, move or delete nothing", async () => {
    // Buckets named after route words, open to the service role (whom no policy stops): a router
    // that took the word for a bucket would write into them.
    await stack.db.exec(`
      insert into storage.buckets (id, name, public)
      values ('move', 'move', true), ('copy', 'copy', true), ('sign', 'sign', true), ('upload', 'upload', true),
        ('list-v2', 'list-v2', true), ('info', 'info', true)
      on conflict do nothing;
    `);
    const state = async () => ({
      objects: (await stack.db.query("select bucket_id, name, metadata from storage.objects order by 1, 2")).rows,
      buckets: (await stack.db.query("select id, public from storage.buckets order by 1")).rows,
      files: storedFiles(),
    });
    const before = await state();
    const service = { apikey: stack.serviceKey, authorization: `Bearer ${stack.serviceKey}` };
    const json = (body: unknown) => ({ body: JSON.stringify(body), type: "application/json" });
    const image = { body: red as BodyInit, type: "image/png" };
    const calls: [method: string, path: string, handler: string, body?: { body: BodyInit; type: string }][] = [
      [
        "POST",
        "/object/move",
        "moveObject, storage-js `move`",
        json({ bucketId: "avatars", sourceKey: avatar, destinationKey: "sign/x.png" }),
      ],
      [
        "POST",
        "/object/copy",
        "copyObject, storage-js `copy`",
        json({ bucketId: "avatars", sourceKey: avatar, destinationKey: "copy/x.png" }),
      ],
      [
        "POST",
        `/object/upload/sign/avatars/${avatar}`,
        "getSignedUploadURL, storage-js `createSignedUploadUrl`",
        json({}),
      ],
      [
        "PUT",
        `/object/upload/sign/avatars/${ADA.id}/other.png`,
        "uploadSignedObject, storage-js `uploadToSignedUrl`",
        image,
      ],
      ["POST", "/object/list-v2/avatars", "listObjectsV2, storage-js `listV2`", json({ prefix: "" })],
      ["GET", `/object/avatars/${avatar}`, "getObject, storage-js `download`"],
      ["HEAD", `/object/avatars/${avatar}`, "getObjectInfo, storage-js `exists`"],
      ["GET", `/object/authenticated/avatars/${avatar}`, "getObject"],
      ["GET", `/object/info/avatars/${avatar}`, "getObjectInfo, storage-js `info`"],
      ["GET", `/object/info/public/avatars/${avatar}`, "getObjectInfo"],
      ["DELETE", `/object/avatars/${avatar}`, "deleteObject"],
      ["GET", "/bucket", "getAllBuckets, storage-js `listBuckets`"],
      ["POST", "/bucket", "createBucket, storage-js `createBucket`", json({ name: "uploads", public: true })],
      ["GET", "/bucket/avatars", "getBucket, storage-js `getBucket`"],
      ["PUT", "/bucket/avatars", "updateBucket, storage-js `updateBucket`", json({ public: false })],
      ["DELETE", "/bucket/avatars", "deleteBucket, storage-js `deleteBucket`"],
      ["POST", "/bucket/avatars/empty", "emptyBucket, storage-js `emptyBucket`"],
      [
        "GET",
        `/render/image/authenticated/avatars/${avatar}?width=40`,
        "renderAuthenticatedImage, storage-js `download`",
      ],
      ["GET", `/render/image/public/avatars/${avatar}?width=40`, "renderPublicImage"],
      ["POST", "/upload/resumable/", "resumable uploads (TUS)", image],
      ["PUT", "/s3/avatars/x.png", "S3 protocol", image],
    ];
    for (const [method, path, handler, body] of calls) {
      const answer = await fetch(`${stack.url}/storage/v1${path}`, {
        method,
        headers: { ...service, ...(body ? { "content-type": body.type } : {}) },
        body: body?.body,
      });
      const route = `${method} ${path.split("?")[0]} (storage-api's ${handler})`;
      expect([answer.status, method === "HEAD" ? null : await answer.json()], route).toEqual([
        501,
        method === "HEAD"
          ? null
          : {
              statusCode: "501",
              code: "NotImplemented",
              error: "Not Implemented",
              message: `${route} is not implemented by the local stack (packages/local-stack/README.md, What still differs from hosted Supabase)`,
            },
      ]);
    }
    // Through storage-js, as a caller would meet it.
    const moved = await stack.admin().storage.from("avatars").move(avatar, `${ADA.id}/moved.png`);
    expect(moved.error).toMatchObject({
      status: 501,
      statusCode: "501",
      message: expect.stringContaining("moveObject"),
    });
    expect(await state()).toEqual(before);

    // Where storage-api's router takes the word for a bucket, so does the stand-in: an object name
    // after it makes `POST /object/move/<name>` createObject in bucket `move`.
    const intoMove = await stack.admin().storage.from("move").upload("a.png", blob(red, "image/png"));
    expect(intoMove.error).toBeNull();
    expect(await objectRows("a.png", "move")).toHaveLength(1);
    // And `POST /object/sign`, with no bucket after it, is no route at all.
    const sign = await fetch(`${stack.url}/storage/v1/object/sign`, { method: "POST", headers: service, body: red });
    expect([sign.status, await sign.json()]).toEqual([
      404,
      { statusCode: 404, error: "Not Found", message: "Route POST:/object/sign not found" },
    ]);
    // The gateway still wants a key first, but for the routes it lets through without one.
    expect((await fetch(`${stack.url}/storage/v1/object/move`, { method: "POST" })).status).toBe(401);
    expect((await fetch(`${stack.url}/storage/v1/render/image/public/avatars/${avatar}`)).status).toBe(501);
  });

  it("refuses names outside storage-api's isValidKey, or that climb out of a folder, are absolute or empty", async () => {
    const files = storedFiles();
    const token = tokenOf(stack, ADA);
    // `..` must be encoded to reach the server: URL parsing resolves it in plain form.
    for (const [path, name] of [
      [`${ADA.id}%2F..%2F${BEN.id}%2Fx.png`, `${ADA.id}/../${BEN.id}/x.png`],
      [`${ADA.id}//b.png`, `${ADA.id}//b.png`],
      [`%2F${ADA.id}/x.png`, `/${ADA.id}/x.png`],
      [`${ADA.id}/.%2Fx.png`, `${ADA.id}/./x.png`],
      [`${ADA.id}/%00.png`, `${ADA.id}/\u0000.png`],
      [`${ADA.id}/a%0Ab.png`, `${ADA.id}/a\nb.png`],
      [`${ADA.id}%5C..%5Cx.png`, `${ADA.id}\\..\\x.png`],
      [`${ADA.id}/%C3%A9x.png`, `${ADA.id}/\u00e9x.png`],
      [`${ADA.id}/a%23x.png`, `${ADA.id}/a#x.png`],
    ]) {
      const answer = await rawUpload(`avatars/${path}`, token, red as BodyInit);
      expect([answer.status, await answer.json()]).toEqual([
        400,
        { statusCode: "400", error: "InvalidKey", message: `Invalid key: ${name}` },
      ]);
    }
    // Through supabase-js `../` is resolved away by URL parsing, and the name left is no object's.
    // (POST /object/x.png is no route of storage-api's: Fastify's 404, its statusCode a number.)
    expect((await ada.storage.from("avatars").upload("../x.png", blob(red, "image/png"))).error).toMatchObject({
      status: 404,
      statusCode: 404,
      message: "Route POST:/object/x.png not found",
    });
    // On disk an object's file cannot also be a folder: the service role, whom no policy stops,
    // reaches the disk with such a name, and is refused there without a row.
    const inside = `${avatar}/inner.png`;
    expect((await stack.admin().storage.from("avatars").upload(inside, blob(red, "image/png"))).error).toMatchObject({
      statusCode: "400",
      message: `Invalid key: ${inside}`,
    });
    expect(await objectRows(inside)).toEqual([]);
    expect(storedFiles()).toEqual(files);
    expect((await stack.db.query("select name from storage.objects where name like '%x.png'")).rows).toEqual([]);
  });

  it("lists only what the caller's policies show: never another user's folder", async () => {
    const mine = await ada.storage.from("avatars").list(ADA.id);
    expect(mine.error).toBeNull();
    expect(mine.data!.map((entry) => entry.name)).toEqual([
      `${ADA.id}.jpeg`,
      `${ADA.id}.jpg`,
      `${ADA.id}.png`,
      `${ADA.id}.webp`,
    ]);
    expect(mine.data![2]).toMatchObject({ id: (await objectRows(avatar))[0]!.id, metadata: { mimetype: "image/png" } });
    expect((await ada.storage.from("avatars").list(ADA.id, { limit: 2, offset: 1 })).data!.map((e) => e.name)).toEqual([
      `${ADA.id}.jpg`,
      `${ADA.id}.png`,
    ]);

    expect(await ada.storage.from("avatars").list(BEN.id)).toEqual({ data: [], error: null });
    expect((await ada.storage.from("avatars").list()).data).toEqual([
      { name: ADA.id, id: null, updated_at: null, created_at: null, last_accessed_at: null, metadata: null },
    ]);
    expect((await clientOf(stack).storage.from("avatars").list()).data).toEqual([]);
    expect((await ben.storage.from("avatars").list(BEN.id)).data!.map((entry) => entry.name)).toEqual([
      `${BEN.id}.png`,
    ]);
  });

  describe("signed URLs and remove, on a private bucket of the test's own", () => {
    const vault = () => ada.storage.from("vault");
    const report = `${ADA.id}/report.pdf`;
    const draft = `${ADA.id}/drafts/a.txt`;
    const benDraft = `${BEN.id}/drafts/c.txt`;
    const pdf = new TextEncoder().encode("%PDF-1.7 a report");
    const text = new TextEncoder().encode("a draft");
    const signUrl = (path: string, token: string, body: unknown) =>
      fetch(`${stack.url}/storage/v1/object/sign/${path}`, {
        method: "POST",
        headers: { apikey: stack.anonKey, authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const signedGet = (path: string, token: string) =>
      fetch(`${stack.url}/storage/v1/object/sign/${path}?token=${encodeURIComponent(token)}`);
    /** A token as storage-api's signJWT makes one, with the project's secret: `{ url, scope, iat, exp }`. */
    const urlToken = (claims: Record<string, unknown>) => {
      const now = Math.floor(Date.now() / 1000);
      return stack.signer.signWithSecret({ scope: "download", iat: now, exp: now + 60, ...claims });
    };
    const decoded = (token: string, part: 0 | 1) =>
      JSON.parse(Buffer.from(token.split(".")[part]!, "base64url").toString("utf8")) as Record<string, unknown>;
    const rowNames = async () =>
      (
        await stack.db.query<{ name: string }>(
          "select name from storage.objects where bucket_id = 'vault' order by name",
        )
      ).rows.map((row) => row.name);
    const notFound = { statusCode: "404", error: "not_found", message: "Object not found" };

    beforeAll(async () => {
      // Users read their own folder; they delete only what is under its drafts/.
      await stack.db.exec(`
        insert into storage.buckets (id, name, public) values ('vault', 'vault', false);
        create policy "Users read their vault" on storage.objects for select to authenticated
          using (bucket_id = 'vault' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create policy "Users delete their vault drafts" on storage.objects for delete to authenticated
          using (
            bucket_id = 'vault' and (storage.foldername(name))[1] = (select auth.uid())::text
            and (storage.foldername(name))[2] = 'drafts'
          );
      `);
      const admin = stack.admin().storage.from("vault");
      for (const [name, bytes, type] of [
        [report, pdf, "application/pdf"],
        [draft, text, "text/plain"],
        [`${ADA.id}/drafts/b.txt`, text, "text/plain"],
        [benDraft, text, "text/plain"],
      ] as const) {
        expect((await admin.upload(name, blob(bytes, type))).error).toBeNull();
      }
    });

    it("signs a URL for an object the caller's select policy shows (storage-api's signObjectUrl: findObject as the caller, then signJWT with the project's secret), which serves the bytes without an API key (getSignedObject)", async () => {
      const { data, error } = await vault().createSignedUrl(report, 60);
      expect(error).toBeNull();
      const url = new URL(data!.signedUrl);
      expect(`${url.origin}${url.pathname}`).toBe(`${stack.url}/storage/v1/object/sign/vault/${report}`);
      const token = url.searchParams.get("token")!;
      const claims = decoded(token, 1);
      expect([decoded(token, 0), claims]).toEqual([
        { alg: "HS256" },
        { url: `vault/${report}`, scope: "download", iat: expect.any(Number), exp: Number(claims.iat) + 60 },
      ]);
      expect(stack.signer.verify(token, { role: false }).ok).toBe(true);

      const answer = await publicGet(data!.signedUrl);
      expect([answer.status, answer.bytes]).toEqual([200, pdf]);
      // The renderer's headers, with Expires at the token's expiry instead of the stored Cache-Control.
      expect(
        [
          "content-type",
          "content-length",
          "etag",
          "x-robots-tag",
          "expires",
          "cache-control",
          "content-disposition",
        ].map(answer.header),
      ).toEqual([
        "application/pdf",
        String(pdf.byteLength),
        md5(pdf),
        "none",
        new Date(Number(claims.exp) * 1000).toUTCString(),
        null,
        null,
      ]);
      const head = await publicGet(data!.signedUrl, "HEAD");
      expect([head.status, head.header("content-length"), head.bytes.byteLength]).toEqual([
        200,
        String(pdf.byteLength),
        0,
      ]);
    });

    it("gives no URL to a caller the select policy does not show the object, nor for a missing object or bucket: NoSuchKey, as storage-api's findObject answers", async () => {
      for (const [client, bucket, path] of [
        [ben, "vault", report],
        [clientOf(stack), "vault", report],
        [ada, "vault", `${ADA.id}/missing.pdf`],
        [ada, "nowhere", report],
      ] as const) {
        const { data, error } = await client.storage.from(bucket).createSignedUrl(path, 60);
        expect(data).toBeNull();
        expect(error).toMatchObject({
          name: "StorageApiError",
          status: 400,
          statusCode: "404",
          message: "Object not found",
        });
      }
      const raw = await signUrl(`vault/${report}`, tokenOf(stack, BEN), { expiresIn: 60 });
      expect([raw.status, await raw.json()]).toEqual([400, notFound]);
    });

    it("checks expiresIn as storage-api's route does: its body schema first (Fastify's validation error, before the JWT), then assertValidNumericJWTExpiration (InvalidParameter)", async () => {
      const token = tokenOf(stack, ADA);
      const schemaError = (message: string) => [400, { statusCode: "400", error: "Error", message }];
      for (const [body, answer] of [
        [{}, schemaError("body must have required property 'expiresIn'")],
        [{ expiresIn: 1.5 }, schemaError("body/expiresIn must be integer")],
        [{ expiresIn: "soon" }, schemaError("body/expiresIn must be integer")],
        [{ expiresIn: 0 }, schemaError("body/expiresIn must be >= 1")],
        [[60], schemaError("body must be object")],
        [
          { expiresIn: 1e21 },
          [400, { statusCode: "400", error: "InvalidParameter", message: "Invalid Parameter expiresIn" }],
        ],
      ] as const) {
        const raw = await signUrl(`vault/${report}`, token, body);
        expect([raw.status, await raw.json()]).toEqual(answer);
      }
      // The schema is checked before the token: a forged one is refused only with a valid body.
      const forged = createSigner().sign({ sub: ADA.id, role: "authenticated" });
      expect((await (await signUrl(`vault/${report}`, forged, {})).json()).message).toBe(
        "body must have required property 'expiresIn'",
      );
      expect(await (await signUrl(`vault/${report}`, forged, { expiresIn: 60 })).json()).toEqual({
        statusCode: "403",
        error: "Unauthorized",
        message: "signature verification failed",
      });
      // ajv coerces a numeric string, as Fastify configures it (coerceTypes).
      expect((await signUrl(`vault/${report}`, token, { expiresIn: "60" })).status).toBe(200);
      expect((await vault().createSignedUrl(report, 0)).error).toMatchObject({
        statusCode: "400",
        message: "body/expiresIn must be >= 1",
      });
    });

    it("refuses a tampered, expired, malformed or upload token with InvalidJWT, and a token for another object with InvalidSignature, as storage-api's verifyObjectSignature", async () => {
      const path = `vault/${report}`;
      const good = urlToken({ url: path });
      const [header, , signature] = good.split(".");
      const otherClaims = Buffer.from(JSON.stringify({ ...decoded(good, 1), url: `vault/${benDraft}` })).toString(
        "base64url",
      );
      const tampered = `${header}.${otherClaims}.${signature}`;
      const now = Math.floor(Date.now() / 1000);
      const invalidJwt = (message: string) => ({ statusCode: "400", error: "InvalidJWT", message });
      const invalidSignature = (message: string) => ({ statusCode: "400", error: "InvalidSignature", message });
      for (const [target, token, body] of [
        [`vault/${benDraft}`, tampered, invalidJwt("signature verification failed")],
        [
          path,
          urlToken({ url: path, iat: now - 120, exp: now - 60 }),
          invalidJwt('"exp" claim timestamp check failed'),
        ],
        // jose counts a token expired from its exp second on.
        [path, urlToken({ url: path, exp: now }), invalidJwt('"exp" claim timestamp check failed')],
        [path, "not-a-token", invalidJwt("Invalid Compact JWS")],
        [path, urlToken({ url: `vault/${draft}` }), invalidSignature("Invalid signature")],
        [`vault/${benDraft}`, good, invalidSignature("Invalid signature")],
        [path, urlToken({ url: path, scope: "upload" }), invalidSignature("Token is not scoped for download")],
        // An unscoped token is a download token only without upsert (isDownloadScopedToken).
        [
          path,
          urlToken({ url: path, scope: undefined, upsert: false }),
          invalidSignature("Token is not scoped for download"),
        ],
      ] as const) {
        const answer = await signedGet(target, token);
        expect([answer.status, await answer.json()]).toEqual([400, body]);
      }
      expect((await signedGet(path, urlToken({ url: path, scope: undefined }))).status).toBe(200);
      const missing = await fetch(`${stack.url}/storage/v1/object/sign/${path}`);
      expect([missing.status, await missing.json()]).toEqual([
        400,
        { statusCode: "400", error: "Error", message: "querystring must have required property 'token'" },
      ]);
    });

    it("makes the download an attachment as storage-api's renderer (handleDownload): `attachment;` for download=true, else the given name percent-encoded", async () => {
      const asFile = await vault().createSignedUrl(report, 60, { download: true });
      expect(new URL(asFile.data!.signedUrl).searchParams.get("download")).toBe("");
      expect((await publicGet(asFile.data!.signedUrl)).header("content-disposition")).toBe("attachment;");
      const named = await vault().createSignedUrl(report, 60, { download: "Q3 report.pdf" });
      const answer = await publicGet(named.data!.signedUrl);
      expect([answer.status, answer.header("content-disposition"), answer.bytes]).toEqual([
        200,
        "attachment; filename=Q3%20report.pdf; filename*=UTF-8''Q3%20report.pdf",
        pdf,
      ]);
      // The name as the query carries it. (storage-js escapes its signed URL once more with encodeURI,
      // so a name that its URLSearchParams escapes, é say, arrives escaped, as on the platform.)
      const [plain] = named.data!.signedUrl.split("&");
      const accented = await publicGet(`${plain}&download=r%C3%A9sum%C3%A9.pdf`);
      expect(accented.header("content-disposition")).toBe(
        "attachment; filename=r%C3%A9sum%C3%A9.pdf; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf",
      );
    });

    it("signs many paths at once, each answered { error, path, signedURL } by what the caller's select policy shows (signObjectUrls)", async () => {
      const missing = `${ADA.id}/missing.pdf`;
      const { data, error } = await vault().createSignedUrls([report, benDraft, missing], 60);
      expect(error).toBeNull();
      const refused = { error: "Either the object does not exist or you do not have access to it", signedURL: null };
      expect(data).toEqual([
        {
          error: null,
          path: report,
          signedURL: expect.stringMatching(/^\/object\/sign\/vault\/.+\?token=/),
          signedUrl: expect.any(String),
        },
        { ...refused, path: benDraft, signedUrl: null },
        { ...refused, path: missing, signedUrl: null },
      ]);
      const answer = await publicGet(data![0]!.signedUrl!);
      expect([answer.status, answer.header("content-type"), answer.bytes]).toEqual([200, "application/pdf", pdf]);
      const tooMany = await fetch(`${stack.url}/storage/v1/object/sign/vault`, {
        method: "POST",
        headers: {
          apikey: stack.anonKey,
          authorization: `Bearer ${tokenOf(stack, ADA)}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ expiresIn: 60, paths: Array.from({ length: 1001 }, (_, i) => `${ADA.id}/${i}`) }),
      });
      expect([tooMany.status, await tooMany.json()]).toEqual([
        400,
        { statusCode: "400", error: "Error", message: "body/paths must NOT have more than 1000 items" },
      ]);
    });

    it("removes only what the caller's delete policy allows (storage-api's deleteObjects: DELETE … RETURNING * as the caller), answers those rows and removes their bytes; a URL signed before then fails", async () => {
      const signed = (await vault().createSignedUrl(draft, 60)).data!.signedUrl;
      expect((await publicGet(signed)).status).toBe(200);
      const missing = `${ADA.id}/drafts/missing.txt`;
      const { data, error } = await vault().remove([draft, report, benDraft, missing]);
      expect(error).toBeNull();
      // objectSchema's columns; the service role's upload has no owner, and a null string is "".
      expect(data).toEqual([
        {
          name: draft,
          bucket_id: "vault",
          owner: "",
          owner_id: "",
          version: expect.any(String),
          id: expect.any(String),
          updated_at: expect.any(String),
          created_at: expect.any(String),
          last_accessed_at: expect.any(String),
          metadata: expect.objectContaining({ mimetype: "text/plain", size: text.byteLength }),
          user_metadata: {},
        },
      ]);
      expect(await rowNames()).toEqual([`${ADA.id}/drafts/b.txt`, report, benDraft]);
      expect(storedFiles().filter((file) => file.startsWith("vault/"))).toEqual([
        `vault/${ADA.id}/drafts/b.txt`,
        `vault/${ADA.id}/report.pdf`,
        `vault/${benDraft}`,
      ]);
      const gone = await publicGet(signed);
      expect([gone.status, JSON.parse(new TextDecoder().decode(gone.bytes))]).toEqual([400, notFound]);

      // Without a signed-in user nothing is removed; Ben removes his own, and its emptied folders go too.
      expect(await clientOf(stack).storage.from("vault").remove([benDraft])).toEqual({ data: [], error: null });
      expect((await ben.storage.from("vault").remove([benDraft])).data!.map((row) => row.name)).toEqual([benDraft]);
      expect(await rowNames()).toEqual([`${ADA.id}/drafts/b.txt`, report]);
      expect(existsSync(join(stack.dataDir, "storage", "vault", BEN.id))).toBe(false);
    });

    it("refuses to remove more than 1000 names (the platform's enforceDeleteObjectsLimit) or none (the route's schema), removing nothing", async () => {
      const before = await rowNames();
      const many = Array.from({ length: 1001 }, (_, i) => (i === 0 ? `${ADA.id}/drafts/b.txt` : `${ADA.id}/${i}`));
      expect((await vault().remove(many)).error).toMatchObject({
        status: 400,
        statusCode: "400",
        message: "Bulk object requests are limited to 1000 objects per request.",
      });
      expect((await vault().remove([])).error).toMatchObject({
        statusCode: "400",
        message: "body/prefixes must NOT have fewer than 1 items",
      });
      expect(await rowNames()).toEqual(before);
      expect(storedFiles()).toContain(`vault/${ADA.id}/drafts/b.txt`);
    });
  });

  it("keeps objects across a restart on the same data", async () => {
    await stack.close();
    const again = await startTestStack(backend, {
      seed: false,
      dataDir: stack.dataDir,
      databaseUrl: stack.databaseUrl,
    });
    try {
      const answer = await publicGet(`${again.url}/storage/v1/object/public/avatars/${avatar}`);
      expect([answer.status, answer.header("content-type"), answer.bytes]).toEqual([200, "image/png", blue]);
    } finally {
      await again.close();
    }
  });
});

describe("storage without a data folder", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ seed: false });
    await stack.db.exec(`insert into auth.users (id, email) values ('${ADA.id}', '${ADA.email}')`);
  }, 60_000);
  afterAll(() => stack?.close());

  it("keeps the bytes in memory and serves them, at public and signed URLs, until they are removed", async () => {
    const red = png([220, 38, 38]);
    const name = `${ADA.id}/${ADA.id}.png`;
    const avatars = clientOf(stack, tokenOf(stack, ADA)).storage.from("avatars");
    expect((await avatars.upload(name, blob(red, "image/png"), { upsert: true })).error).toBeNull();
    const answer = await publicGet(avatars.getPublicUrl(name).data.publicUrl);
    expect([answer.status, answer.header("content-type"), answer.bytes]).toEqual([200, "image/png", red]);
    // The public download takes `download` too (getPublicObject passes it to the same renderer).
    const attachment = await publicGet(`${avatars.getPublicUrl(name).data.publicUrl}?download=me.png`);
    expect(attachment.header("content-disposition")).toBe("attachment; filename=me.png; filename*=UTF-8''me.png");

    const signed = (await avatars.createSignedUrl(name, 60)).data!.signedUrl;
    expect((await publicGet(signed)).bytes).toEqual(red);
    expect((await avatars.remove([name])).data!.map((row) => row.name)).toEqual([name]);
    const gone = await publicGet(signed);
    expect([gone.status, JSON.parse(new TextDecoder().decode(gone.bytes)).message]).toEqual([400, "Object not found"]);
    // The bytes went with the row: a row written again without them is served as the backend's 404.
    await stack.db.query("insert into storage.objects (bucket_id, name) values ('avatars', $1)", [name]);
    const orphan = await publicGet(avatars.getPublicUrl(name).data.publicUrl);
    expect([orphan.status, orphan.header("cache-control"), JSON.parse(new TextDecoder().decode(orphan.bytes))]).toEqual(
      [400, "no-store", { error: "Not found", message: "The resource was not found", statusCode: "404" }],
    );
  });
});
