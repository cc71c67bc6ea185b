/**
 * The portal store against a stand-in supabase client: what it asks the backend, when, and what
 * it makes of the answers. The real calls against the local stack are in tests/e2e/portal.spec.ts,
 * settings.spec.ts and purchase-history.spec.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const fake = vi.hoisted(() => {
  const state = {
    log: [] as string[],
    orders: null as null | { promise: Promise<unknown>; resolve: (v: unknown) => void },
    profile: null as null | { promise: Promise<unknown>; resolve: (v: unknown) => void },
    staff: null as null | { promise: Promise<unknown>; resolve: (v: unknown) => void },
    upserts: [] as unknown[],
    upsertError: null as null | { message: string },
    uploads: [] as { path: string; file: unknown; options: unknown }[],
    uploadError: null as null | { message: string },
    signOuts: [] as unknown[],
    signOutError: null as null | { message: string },
  };
  const supabase = {
    from(table: string) {
      return {
        select: () => ({
          order: (column: string, options: unknown) => {
            state.log.push(`select ${table} order ${column} ${JSON.stringify(options)}`);
            return state.orders!.promise;
          },
          eq: (column: string, value: string) => ({
            maybeSingle: () => {
              state.log.push(`select ${table} ${column}=${value} maybeSingle`);
              return table === "staff" ? state.staff!.promise : state.profile!.promise;
            },
          }),
        }),
        upsert: async (row: unknown) => {
          state.log.push(`upsert ${table}`);
          state.upserts.push(row);
          return { error: state.upsertError };
        },
      };
    },
    storage: {
      from: (bucket: string) => ({
        upload: async (path: string, file: unknown, options: unknown) => {
          state.log.push(`upload ${bucket}`);
          state.uploads.push({ path, file, options });
          return { data: state.uploadError ? null : { path }, error: state.uploadError };
        },
        getPublicUrl: (path: string) => ({
          data: { publicUrl: `http://localhost:4321/storage/v1/object/public/${bucket}/${path}` },
        }),
      }),
    },
    auth: {
      signOut: async (options: unknown) => {
        state.signOuts.push(options);
        return { error: state.signOutError };
      },
    },
  };
  return { state, supabase };
});

vi.mock("../../lib/supabase", () => ({ supabase: fake.supabase }));

const USER = { id: "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f", email: "dana@example.com" };
const location = { pathname: "/portal/settings", search: "", replace: vi.fn(), assign: vi.fn() };

/** A fresh store and session store (the modules keep state per page). */
async function load() {
  vi.resetModules();
  const session = await import("~/stores/session");
  const store = await import("./store");
  return { session, store };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  Object.assign(fake.state, {
    log: [],
    orders: deferred(),
    profile: deferred(),
    staff: deferred(),
    upserts: [],
    upsertError: null,
    uploads: [],
    uploadError: null,
    signOuts: [],
    signOutError: null,
  });
  location.replace.mockReset();
  location.assign.mockReset();
  vi.stubGlobal("window", { location });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("startPortal", () => {
  it("waits for the session, then asks for orders and profile at once, each once per user", async () => {
    const { session, store } = await load();
    store.startPortal(["orders", "profile"]);
    await tick();
    expect(fake.state.log).toEqual([]);

    session.applyAuthEvent("INITIAL_SESSION", USER);
    await tick();
    // The requests are out before any has answered: the page's data, and the user's own staff row.
    expect(fake.state.log).toEqual([
      'select stripe_user_orders order order_date {"ascending":false}',
      `select profiles id=${USER.id} maybeSingle`,
      `select staff user_id=${USER.id} maybeSingle`,
    ]);
    expect(store.$orders.get()).toEqual({ status: "loading" });

    const orders = [{ order_id: 1, order_status: "completed" }];
    fake.state.orders!.resolve({ data: orders, error: null });
    fake.state.profile!.resolve({ data: null, error: null });
    await tick();
    expect(store.$orders.get()).toEqual({ status: "ready", data: orders });
    expect(store.$profile.get()).toEqual({ status: "ready", data: null });

    // A refreshed token reports the same user: nothing is fetched again.
    session.applyAuthEvent("TOKEN_REFRESHED", USER);
    await tick();
    expect(fake.state.log).toHaveLength(3);
    expect(location.replace).not.toHaveBeenCalled();
  });

  it("keeps a profile's avatar only when it is the user's own in this project's storage", async () => {
    // The stand-in client's project is http://localhost:4321 (its getPublicUrl above).
    const own = `http://localhost:4321/storage/v1/object/public/avatars/${USER.id}/${USER.id}.png?v=1790000000000`;
    for (const [avatar, shown] of [
      [own, own],
      [`http://localhost:54321/storage/v1/object/public/avatars/${USER.id}/${USER.id}.png`, null],
      [`https://abcdefghijklmnopqrst.supabase.co/storage/v1/object/public/avatars/${USER.id}/${USER.id}.png`, null],
    ] as const) {
      const { session, store } = await load();
      fake.state.profile = deferred();
      store.startPortal(["profile"]);
      session.applyAuthEvent("INITIAL_SESSION", USER);
      await tick();
      fake.state.profile.resolve({ data: { id: USER.id, full_name: "Dana", avatar_url: avatar }, error: null });
      await tick();
      expect(store.$profile.get(), avatar).toEqual({
        status: "ready",
        data: { id: USER.id, full_name: "Dana", avatar_url: shown },
      });
    }
  });

  it("fetches only what the page shows", async () => {
    const { session, store } = await load();
    store.startPortal(["profile"]);
    session.applyAuthEvent("INITIAL_SESSION", USER);
    await tick();
    expect(fake.state.log).toEqual([
      `select profiles id=${USER.id} maybeSingle`,
      `select staff user_id=${USER.id} maybeSingle`,
    ]);
  });

  it("knows a staff member's role from their own staff row, and a customer as nobody's staff", async () => {
    for (const [row, role] of [
      [null, null],
      [{ role: "coach" }, "coach"],
      [{ role: "admin" }, "admin"],
      [{ role: "owner" }, null],
    ] as const) {
      const { session, store } = await load();
      fake.state.staff = deferred();
      store.startPortal([]);
      session.applyAuthEvent("INITIAL_SESSION", USER);
      await tick();
      expect(store.$staffRole.get()).toEqual({ status: "loading" });
      fake.state.staff.resolve({ data: row, error: null });
      await tick();
      expect(store.$staffRole.get(), JSON.stringify(row)).toEqual({ status: "ready", data: role });
    }
  });

  it("logs a failed fetch and keeps the error out of the store", async () => {
    const { session, store } = await load();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    store.startPortal(["orders", "profile"]);
    session.applyAuthEvent("INITIAL_SESSION", USER);
    await tick();
    fake.state.orders!.resolve({ data: null, error: { message: "permission denied for view" } });
    fake.state.profile!.resolve({ data: null, error: { message: "JWT expired" } });
    fake.state.staff!.resolve({ data: null, error: null });
    await tick();
    expect(store.$orders.get()).toEqual({ status: "error" });
    expect(store.$profile.get()).toEqual({ status: "error" });
    expect(logged).toHaveBeenCalledTimes(2);
  });

  it("sends a signed-out visitor to /login with the page to come back to", async () => {
    const { session, store } = await load();
    store.startPortal(["orders"]);
    session.applyAuthEvent("INITIAL_SESSION", null);
    expect(location.replace).toHaveBeenCalledWith("/login?next=%2Fportal%2Fsettings");
    expect(fake.state.log).toEqual([]);
  });

  it("does nothing on the server", async () => {
    vi.unstubAllGlobals();
    const { session, store } = await load();
    store.startPortal(["orders"]);
    session.applyAuthEvent("INITIAL_SESSION", USER);
    await tick();
    expect(fake.state.log).toEqual([]);
  });
});

describe("actions", () => {
  async function signedIn() {
    const loaded = await load();
    loaded.store.startPortal(["profile"]);
    loaded.session.applyAuthEvent("INITIAL_SESSION", USER);
    await tick();
    fake.state.profile!.resolve({ data: { id: USER.id, full_name: "Dana", avatar_url: null }, error: null });
    await tick();
    return loaded;
  }

  it("saves the contact form by upsert with the user's id, trimmed, empty fields null, no updated_at", async () => {
    const { store } = await signedIn();
    expect(await store.saveProfile({ full_name: " Dana Whitaker ", city: "Austin", zip: "" })).toEqual({ ok: true });
    expect(fake.state.upserts).toEqual([
      {
        id: USER.id,
        full_name: "Dana Whitaker",
        address: null,
        address_2: null,
        city: "Austin",
        state: null,
        country: null,
        zip: null,
      },
    ]);
    const profile = store.$profile.get();
    expect(profile.status === "ready" && profile.data?.full_name).toBe("Dana Whitaker");
  });

  it("returns the backend's message when the save fails", async () => {
    const { store } = await signedIn();
    fake.state.upsertError = { message: "new row violates row-level security policy" };
    expect(await store.saveProfile({ full_name: "x" })).toEqual({
      ok: false,
      message: "new row violates row-level security policy",
    });
  });

  it("uploads an avatar to the user's folder over the old one, then saves its versioned public URL", async () => {
    const { store } = await signedIn();
    vi.spyOn(Date, "now").mockReturnValue(1_790_000_000_000);
    const file = new File([new Uint8Array([1, 2, 3])], "me.jpeg", { type: "image/jpeg" });
    expect(await store.uploadAvatar(file)).toEqual({ ok: true });
    expect(fake.state.uploads).toEqual([
      { path: `${USER.id}/${USER.id}.jpg`, file, options: { upsert: true, contentType: "image/jpeg" } },
    ]);
    const url = `http://localhost:4321/storage/v1/object/public/avatars/${USER.id}/${USER.id}.jpg?v=1790000000000`;
    expect(fake.state.upserts).toEqual([{ id: USER.id, avatar_url: url }]);
    const profile = store.$profile.get();
    expect(profile.status === "ready" && profile.data).toMatchObject({ full_name: "Dana", avatar_url: url });
  });

  it("refuses a file that is not a PNG, JPEG or WebP without uploading it", async () => {
    const { store } = await signedIn();
    const file = new File(["hello"], "notes.txt", { type: "text/plain" });
    expect(await store.uploadAvatar(file)).toEqual({ ok: false, message: "Please choose a PNG, JPEG or WebP image." });
    expect(fake.state.uploads).toEqual([]);
    expect(fake.state.upserts).toEqual([]);
  });

  it("returns the bucket's message when it refuses the upload, and saves nothing", async () => {
    const { store } = await signedIn();
    fake.state.uploadError = { message: "The object exceeded the maximum allowed size" };
    const file = new File([new Uint8Array([1])], "a.png", { type: "image/png" });
    expect(await store.uploadAvatar(file)).toEqual({
      ok: false,
      message: "The object exceeded the maximum allowed size",
    });
    expect(fake.state.upserts).toEqual([]);
  });

  it("logs out on this device only, logs a failure, goes home, and does not send the leaving customer to /login", async () => {
    const { session, store } = await signedIn();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    fake.state.signOutError = { message: "network down" };
    await store.logout();
    expect(fake.state.signOuts).toEqual([{ scope: "local" }]);
    expect(logged).toHaveBeenCalledOnce();
    expect(location.assign).toHaveBeenCalledWith("/");
    session.applyAuthEvent("SIGNED_OUT", null);
    expect(location.replace).not.toHaveBeenCalled();
  });

  it("marks the portal's data shown once", async () => {
    const { store } = await load();
    const mark = vi.spyOn(performance, "mark");
    store.markPortalDataShown();
    store.markPortalDataShown();
    expect(mark).toHaveBeenCalledTimes(1);
    expect(mark).toHaveBeenCalledWith("portal-data-shown");
  });
});
