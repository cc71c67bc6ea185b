/**
 * /portal/settings (docs/product.md, Portal; Validation rules; Calls; Messages and errors): the
 * profile picture and the contact form, with the account's e-mail read-only. Messages appear in a
 * status region that is in the page from the start, so screen readers announce what is written
 * into it.
 */
import { useRef, useState, type SubmitEvent } from "react";
import type { ProfileRow } from "~/lib/database";
import { $auth } from "~/stores/session";
import { AVATAR_TYPES, CONTACT_MAX_LENGTH, contactValues, emailLocalPart, MESSAGES, type ContactField } from "./logic";
import { $profile, LOADING, saveProfile, uploadAvatar } from "./store";
import { TextField } from "~/components/ui/form";
import { LoadingNote, Panel, pillButtonClass, Skeleton } from "~/components/ui/panel";
import { AUTH_LOADING, Avatar } from "./ui";
import { useAtom } from "~/lib/useAtom";

type Message = { kind: "success" | "error"; text: string };

export default function Settings() {
  const auth = useAtom($auth, AUTH_LOADING);
  const profile = useAtom($profile, LOADING);
  const [message, setMessage] = useState<Message | null>(null);
  const user = auth.status === "signed-in" ? auth.user : null;
  const ready = user && profile.status === "ready";

  return (
    <div className="mt-10 grid gap-8 lg:grid-cols-[20rem_1fr]">
      <Panel
        as="section"
        aria-labelledby="avatar-heading"
        aria-busy={!ready && profile.status !== "error"}
        className="h-fit p-6"
      >
        <h2 id="avatar-heading" className="text-lg font-semibold text-white">
          Profile Picture
        </h2>
        {profile.status === "error" ? (
          <p className="mt-4 text-slate-300">Your picture cannot be changed just now.</p>
        ) : ready ? (
          <AvatarForm
            profile={profile.data}
            name={profile.data?.full_name?.trim() || emailLocalPart(user.email)}
            onMessage={setMessage}
          />
        ) : (
          <div className="mt-5 flex flex-col items-center gap-4">
            <Skeleton className="size-24 rounded-full" />
            <Skeleton className="h-10 w-40" />
            <LoadingNote>Loading your profile picture…</LoadingNote>
          </div>
        )}
      </Panel>

      <Panel
        as="section"
        aria-labelledby="contact-heading"
        aria-busy={!ready && profile.status !== "error"}
        className="p-6 sm:p-8"
      >
        <h2 id="contact-heading" className="text-lg font-semibold text-white">
          Contact Information
        </h2>
        {profile.status === "error" ? (
          <p className="mt-4 text-slate-300">
            We couldn&rsquo;t load your details just now. Please refresh the page in a moment.
          </p>
        ) : ready ? (
          <ContactForm key={user.id} email={user.email ?? ""} profile={profile.data} onMessage={setMessage} />
        ) : (
          <FormSkeleton />
        )}
      </Panel>

      <Toast message={message} onDismiss={() => setMessage(null)} />
    </div>
  );
}

/** The status region (a toast): polite, always present, with a way to dismiss what it says. */
function Toast({ message, onDismiss }: { message: Message | null; onDismiss: () => void }) {
  return (
    <div className="pointer-events-none fixed inset-x-4 bottom-4 z-50 flex justify-center sm:inset-x-auto sm:right-6 sm:bottom-6">
      <div
        className={
          message
            ? `pointer-events-auto flex max-w-md items-start gap-3 rounded-xl border px-4 py-3 text-sm shadow-2xl shadow-black/50 ${
                message.kind === "success"
                  ? "border-green-400/40 bg-green-950 text-green-100"
                  : "border-red-400/40 bg-red-950 text-red-100"
              }`
            : ""
        }
      >
        <p role="status" aria-live="polite" aria-atomic="true" className="min-w-0 flex-1" data-portal-message>
          {message?.text}
        </p>
        {message && (
          <button
            type="button"
            onClick={onDismiss}
            className="-my-1 -mr-2 rounded-md px-2 py-1 text-xs font-semibold uppercase tracking-wide opacity-80 hover:opacity-100"
          >
            Dismiss
          </button>
        )}
      </div>
    </div>
  );
}

function AvatarForm({
  profile,
  name,
  onMessage,
}: {
  profile: ProfileRow | null;
  name: string;
  onMessage: (message: Message) => void;
}) {
  const [uploading, setUploading] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  async function upload(file: File) {
    setUploading(true);
    const outcome = await uploadAvatar(file);
    setUploading(false);
    if (input.current) input.current.value = "";
    onMessage(
      outcome.ok
        ? { kind: "success", text: MESSAGES.avatarSaved }
        : { kind: "error", text: MESSAGES.avatarError(outcome.message) },
    );
  }

  return (
    <div className="mt-5 flex flex-col items-center text-center">
      <Avatar url={profile?.avatar_url} name={name} size="lg" label="Your profile picture" />
      <label
        htmlFor="avatar-file"
        className="mt-5 inline-flex min-h-11 cursor-pointer items-center justify-center rounded-full border border-white/25 bg-white/5 px-5 text-sm font-semibold text-white hover:bg-white/10 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-sky-400"
      >
        {uploading ? "Uploading…" : "Upload new picture"}
        <input
          ref={input}
          id="avatar-file"
          type="file"
          accept={Object.keys(AVATAR_TYPES).join(",")}
          aria-describedby="avatar-hint"
          disabled={uploading}
          className="sr-only"
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            if (file) void upload(file);
          }}
        />
      </label>
      <p id="avatar-hint" className="mt-3 text-sm text-slate-300">
        Upload a 100x100px image
        <span className="mt-1 block text-xs text-slate-400">PNG, JPEG or WebP, up to 2 MB.</span>
      </p>
    </div>
  );
}

const FIELDS: { name: ContactField; label: string; autoComplete: string; wide?: boolean }[] = [
  { name: "full_name", label: "Full name", autoComplete: "name", wide: true },
  { name: "address", label: "Address", autoComplete: "address-line1", wide: true },
  { name: "address_2", label: "Address line 2 (optional)", autoComplete: "address-line2", wide: true },
  { name: "city", label: "City", autoComplete: "address-level2" },
  { name: "state", label: "State / Province", autoComplete: "address-level1" },
  { name: "country", label: "Country", autoComplete: "country-name" },
  { name: "zip", label: "ZIP / Postal code", autoComplete: "postal-code" },
];

function ContactForm({
  email,
  profile,
  onMessage,
}: {
  email: string;
  profile: ProfileRow | null;
  onMessage: (message: Message) => void;
}) {
  const [values, setValues] = useState(() => contactValues(profile));
  const [saving, setSaving] = useState(false);

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaving(true);
    const outcome = await saveProfile(values);
    setSaving(false);
    onMessage(
      outcome.ok
        ? { kind: "success", text: MESSAGES.profileSaved }
        : { kind: "error", text: MESSAGES.profileError(outcome.message) },
    );
  }

  return (
    <form onSubmit={submit} className="mt-6 grid gap-5 sm:grid-cols-2">
      <TextField
        compact
        className="sm:col-span-2"
        label="Email"
        hint="The address you sign in with. To change it, contact our team."
        id="contact-email"
        type="email"
        value={email}
        readOnly
        autoComplete="email"
      />
      {FIELDS.map((field) => (
        <TextField
          key={field.name}
          compact
          className={field.wide ? "sm:col-span-2" : undefined}
          label={field.label}
          id={`contact-${field.name}`}
          name={field.name}
          type="text"
          value={values[field.name]}
          maxLength={CONTACT_MAX_LENGTH[field.name]}
          autoComplete={field.autoComplete}
          onChange={(event) => {
            const value = event.currentTarget.value;
            setValues((current) => ({ ...current, [field.name]: value }));
          }}
        />
      ))}
      <div className="sm:col-span-2">
        <button type="submit" disabled={saving} className={pillButtonClass.primary}>
          {saving ? "Saving…" : "Save Changes"}
        </button>
      </div>
    </form>
  );
}

function FormSkeleton() {
  return (
    <div className="mt-6 grid gap-5 sm:grid-cols-2">
      {["sm:col-span-2", "sm:col-span-2", "sm:col-span-2", "", "", "", ""].map((span, i) => (
        <div key={i} className={span}>
          <Skeleton className="h-4 w-24" />
          <Skeleton className="mt-2 h-11 w-full" />
        </div>
      ))}
      <Skeleton className="h-11 w-36 rounded-full" />
      <LoadingNote>Loading your details…</LoadingNote>
    </div>
  );
}
