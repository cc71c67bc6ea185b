/**
 * `/storage/v1` driven by the real supabase-js over HTTP: the portal's avatar call (spec §7:
 * upload to {userId}/{userId}.{ext} with overwrite, get the public URL), the bucket's policies
 * and limits, and persistence across a restart, on embedded Postgres and on a PostgreSQL server.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import type { SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "./stack.ts";

const PASSWORD = "avatar-password-1";

/** A valid PNG of `size`×`size` pixels of one colour. */
function png(size: number, rgb: [number, number, number]): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.from([0, ...Array.from({ length: size }, () => rgb).flat()]);
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  const file = Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
  return new Uint8Array(file);
}

const blob = (bytes: Uint8Array, type: string) => new Blob([bytes as BlobPart], { type });

describe.each(BACKENDS)("storage on $name", (backend) => {
  let stack: TestStack;
  let ada: { id: string; client: SupabaseClient };
  let ben: { id: string; client: SupabaseClient };
  const red = png(100, [220, 38, 38]);
  const blue = png(100, [37, 99, 235]);

  async function customer(email: string) {
    const { data } = await stack.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    const client = stack.client();
    await client.auth.signInWithPassword({ email, password: PASSWORD });
    return { id: data.user!.id, client };
  }
  const rows = async (name: string) =>
    (await stack.db.query("select name from storage.objects where bucket_id = 'avatars' and name = $1", [name])).rows
      .length;
  const stored = (name: string) => existsSync(join(stack.dataDir, "storage", "avatars", name));
  const publicBytes = async (client: SupabaseClient, name: string) => {
    const { publicUrl } = client.storage.from("avatars").getPublicUrl(name).data;
    const answer = await fetch(publicUrl);
    return {
      status: answer.status,
      type: answer.headers.get("content-type"),
      bytes: new Uint8Array(await answer.arrayBuffer()),
    };
  };

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false });
    ada = await customer("ada.avatar@example.com");
    ben = await customer("ben.avatar@example.com");
  }, 60_000);
  afterAll(() => stack?.stop());

  it("uploads the avatar to the user's folder, serves it at its public URL, and overwrites it", async () => {
    const name = `${ada.id}/${ada.id}.png`;
    const avatars = ada.client.storage.from("avatars");
    const first = await avatars.upload(name, blob(red, "image/png"), { upsert: true });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ path: name, fullPath: `avatars/${name}` });
    const { publicUrl } = avatars.getPublicUrl(name).data;
    expect(publicUrl).toBe(`${stack.url}/storage/v1/object/public/avatars/${name}`);
    expect(await publicBytes(ada.client, name)).toEqual({ status: 200, type: "image/png", bytes: red });

    const again = await avatars.upload(name, blob(blue, "image/png"), { upsert: true });
    expect(again.error).toBeNull();
    expect((await publicBytes(ada.client, name)).bytes).toEqual(blue);
    expect(await rows(name)).toBe(1);
  });

  it("refuses a second upload to the same name without upsert", async () => {
    const name = `${ada.id}/second.png`;
    const avatars = ada.client.storage.from("avatars");
    expect((await avatars.upload(name, blob(red, "image/png"))).error).toBeNull();
    const duplicate = await avatars.upload(name, blob(blue, "image/png"));
    expect(duplicate.error).toMatchObject({ status: 409 });
    expect((await publicBytes(ada.client, name)).bytes).toEqual(red);
  });

  it("refuses uploads into another user's folder, and from anon", async () => {
    const theirs = `${ben.id}/${ben.id}.png`;
    expect(
      (await ben.client.storage.from("avatars").upload(theirs, blob(blue, "image/png"), { upsert: true })).error,
    ).toBeNull();
    const intrusion = await ada.client.storage.from("avatars").upload(theirs, blob(red, "image/png"), { upsert: true });
    expect(intrusion.error).toMatchObject({ status: 403, message: "new row violates row-level security policy" });
    expect((await publicBytes(ben.client, theirs)).bytes).toEqual(blue);

    const planted = `${ben.id}/planted.png`;
    expect((await ada.client.storage.from("avatars").upload(planted, blob(red, "image/png"))).error).toMatchObject({
      status: 403,
    });
    const anon = await stack.client().storage.from("avatars").upload(`${ada.id}/anon.png`, blob(red, "image/png"));
    expect(anon.error).toMatchObject({ status: 403 });
    expect([await rows(planted), await rows(`${ada.id}/anon.png`)]).toEqual([0, 0]);
    expect(stored(planted)).toBe(false);
  });

  it("refuses a file that is not a PNG, JPEG or WebP image, and stores nothing", async () => {
    const name = `${ada.id}/notes.txt`;
    const { error } = await ada.client.storage.from("avatars").upload(name, blob(Buffer.from("hello"), "text/plain"));
    expect(error).toMatchObject({ status: 415, message: "mime type text/plain is not supported" });
    expect([await rows(name), stored(name)]).toEqual([0, false]);
  });

  it("refuses a file over 2 MB, and stores nothing", async () => {
    const name = `${ada.id}/huge.png`;
    const huge = new Uint8Array(2 * 1024 * 1024 + 1);
    huge.set(red);
    const { error } = await ada.client.storage.from("avatars").upload(name, blob(huge, "image/png"));
    expect(error).toMatchObject({ status: 413, message: "The object exceeded the maximum allowed size" });
    expect([await rows(name), stored(name)]).toEqual([0, false]);
  });

  it("refuses bad JWTs and bad names, and answers 404 for a missing object", async () => {
    const forged = await fetch(`${stack.url}/storage/v1/object/avatars/${ada.id}/x.png`, {
      method: "POST",
      headers: { apikey: stack.anonKey, authorization: "Bearer not.a.token", "content-type": "image/png" },
      body: red as BodyInit,
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ statusCode: "403", error: "Unauthorized" });
    // A client can send `..` encoded (the URL parser would resolve it in plain form).
    for (const bad of [`${ada.id}%2F..%2F${ben.id}/x.png`, `${ada.id}//x.png`, `${ada.id}/%00.png`]) {
      const token = (await ada.client.auth.getSession()).data.session!.access_token;
      const answer = await fetch(`${stack.url}/storage/v1/object/avatars/${bad}`, {
        method: "POST",
        headers: { apikey: stack.anonKey, authorization: `Bearer ${token}`, "content-type": "image/png" },
        body: red as BodyInit,
      });
      expect(answer.status).toBe(400);
    }
    expect((await publicBytes(ada.client, `${ada.id}/missing.png`)).status).toBe(404);
    const unknownBucket = await ada.client.storage.from("secrets").upload(`${ada.id}/a.png`, blob(red, "image/png"));
    expect(unknownBucket.error).toMatchObject({ status: 404 });
  });

  it("lists only what the caller may see: never another user's folder", async () => {
    const mine = await ada.client.storage.from("avatars").list(ada.id);
    expect(mine.error).toBeNull();
    expect(mine.data!.map((entry) => entry.name)).toEqual([`${ada.id}.png`, "second.png"]);
    const theirs = await ada.client.storage.from("avatars").list(ben.id);
    expect(theirs.data).toEqual([]);
    const root = await stack.client().storage.from("avatars").list();
    expect(root.data).toEqual([]);
  });

  it("keeps objects across a restart", async () => {
    const name = `${ada.id}/${ada.id}.png`;
    await stack.close();
    const again = await startTestStack(backend, {
      seed: false,
      dataDir: stack.dataDir,
      databaseUrl: stack.databaseUrl,
    });
    try {
      const answer = await fetch(`${again.url}/storage/v1/object/public/avatars/${name}`);
      expect(answer.status).toBe(200);
      expect(new Uint8Array(await answer.arrayBuffer())).toEqual(blue);
      expect(readdirSync(join(stack.dataDir, "storage", "avatars", ada.id)).sort()).toEqual([
        `${ada.id}.png`,
        "second.png",
      ]);
    } finally {
      await again.close();
    }
  });
});
