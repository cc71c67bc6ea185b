-- Local stand-in for what a hosted Supabase project has before its own migrations run: the API
-- roles, the `auth` and `storage` schemas with the tables and functions that Supabase Auth (GoTrue)
-- and Supabase Storage keep there, pgcrypto in `extensions`, and the default privileges of a new
-- project. Column names, types and defaults follow the real services' schemas, so that SQL written
-- for the platform (supabase/seed.sql, policies) runs here unchanged. Dev and test only: production
-- runs the real platform. packages/local-stack/README.md explains the choices. Applied on every
-- start; everything here is idempotent. Bump PLATFORM_VERSION in packages/local-stack/src/db.ts
-- when a change needs a fresh database.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
end
$$;

-- The stack's own connection plays PostgREST's authenticator: it switches to the request's role.
grant anon, authenticated, service_role to current_user;

create schema if not exists auth;
create schema if not exists storage;
create schema if not exists extensions;
create extension if not exists pgcrypto with schema extensions;
grant usage on schema extensions to anon, authenticated, service_role;

-- auth ---------------------------------------------------------------------------------------
do $$
begin
  if not exists (select 1 from pg_type where typname = 'aal_level' and typnamespace = 'auth'::regnamespace) then
    create type auth.aal_level as enum ('aal1', 'aal2', 'aal3');
  end if;
  if not exists (select 1 from pg_type where typname = 'one_time_token_type' and typnamespace = 'auth'::regnamespace) then
    create type auth.one_time_token_type as enum ('confirmation_token', 'reauthentication_token', 'recovery_token',
      'email_change_token_new', 'email_change_token_current', 'phone_change_token');
  end if;
end
$$;

-- The token columns have no default and may be null in the table, but GoTrue reads them as
-- strings: rows written by hand (seed.sql) must set them to ''.
create table if not exists auth.users (
  instance_id uuid,
  id uuid primary key,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0 check (email_change_confirm_status between 0 and 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false,
  unique (phone)
);
create unique index if not exists users_email_partial_key on auth.users (email) where (is_sso_user = false);
create unique index if not exists recovery_token_idx on auth.users (recovery_token) where (recovery_token !~ '^[0-9 ]*$');

create table if not exists auth.identities (
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  id uuid primary key default gen_random_uuid(),
  unique (provider_id, provider)
);

-- A session per sign-in. Refresh tokens are GoTrue's second algorithm: the session keeps an HMAC
-- key and a counter, and each token encodes the session and the counter it was issued at.
create table if not exists auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz,
  updated_at timestamptz,
  factor_id uuid,
  aal auth.aal_level,
  not_after timestamptz,
  refreshed_at timestamp,
  user_agent text,
  ip inet,
  tag text,
  refresh_token_hmac_key text,
  refresh_token_counter bigint
);

-- How each session was signed in: the `amr` claim of its access tokens.
create table if not exists auth.mfa_amr_claims (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid primary key,
  unique (session_id, authentication_method)
);

-- GoTrue's first-algorithm refresh tokens; kept for the schema's sake (seeds and tools read it).
create table if not exists auth.refresh_tokens (
  instance_id uuid,
  id bigserial primary key,
  token varchar(255) unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz,
  updated_at timestamptz,
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);

-- The hashes of the one-time tokens e-mailed links carry, one per user and type.
create table if not exists auth.one_time_tokens (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type auth.one_time_token_type not null,
  token_hash text not null check (char_length(token_hash) > 0),
  relates_to text not null,
  created_at timestamp not null default now(),
  updated_at timestamp not null default now(),
  unique (user_id, token_type)
);

-- GoTrue's lookup indexes, as a hosted project has them: users by e-mail, a user's identities,
-- sessions and one-time tokens.
create index if not exists users_instance_id_email_idx on auth.users (instance_id, lower(email::text));
create index if not exists users_instance_id_idx on auth.users (instance_id);
create index if not exists identities_user_id_idx on auth.identities (user_id);
create index if not exists identities_email_idx on auth.identities (email text_pattern_ops);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);
create index if not exists refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);
create index if not exists one_time_tokens_token_hash_hash_idx on auth.one_time_tokens using hash (token_hash);
create index if not exists one_time_tokens_relates_to_hash_idx on auth.one_time_tokens using hash (relates_to);

alter table auth.users enable row level security;
alter table auth.identities enable row level security;
alter table auth.sessions enable row level security;
alter table auth.refresh_tokens enable row level security;
alter table auth.one_time_tokens enable row level security;
alter table auth.mfa_amr_claims enable row level security;

-- The same definitions Supabase uses: claims come from the request's JWT.
create or replace function auth.uid() returns uuid language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.email() returns text language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

create or replace function auth.jwt() returns jsonb language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

-- The API roles may use the schema and its functions, not its tables.
grant usage on schema auth to anon, authenticated, service_role;
grant execute on function auth.uid(), auth.role(), auth.email(), auth.jwt() to anon, authenticated, service_role;

-- storage ------------------------------------------------------------------------------------
create table if not exists storage.buckets (
  id text primary key,
  name text not null unique,
  owner uuid,
  owner_id text,
  public boolean default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);

create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  version text,
  user_metadata jsonb
);
create unique index if not exists bucketid_objname on storage.objects (bucket_id, name);
alter table storage.objects enable row level security;
alter table storage.buckets enable row level security;

create or replace function storage.foldername(name text) returns text[] language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1 : array_length(_parts, 1) - 1];
end
$$;

create or replace function storage.filename(name text) returns text language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

create or replace function storage.extension(name text) returns text language plpgsql immutable as $$
declare
  _parts text[];
  _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end
$$;

-- Storage removes objects and buckets through its API only: a plain DELETE is refused, as on
-- the platform.
create or replace function storage.protect_delete() returns trigger language plpgsql as $$
begin
  if coalesce(current_setting('storage.allow_delete_query', true), 'false') <> 'true' then
    raise exception 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
      using hint = 'This prevents accidental data loss from orphaned objects.', errcode = '42501';
  end if;
  return null;
end
$$;
drop trigger if exists protect_objects_delete on storage.objects;
create trigger protect_objects_delete before delete on storage.objects
  for each statement execute function storage.protect_delete();
drop trigger if exists protect_buckets_delete on storage.buckets;
create trigger protect_buckets_delete before delete on storage.buckets
  for each statement execute function storage.protect_delete();

create or replace function storage.update_updated_at_column() returns trigger language plpgsql as $$
begin
  new.updated_at = now();
  return new;
end
$$;
drop trigger if exists update_objects_updated_at on storage.objects;
create trigger update_objects_updated_at before update on storage.objects
  for each row execute function storage.update_updated_at_column();

grant usage on schema storage to anon, authenticated, service_role;
grant all on storage.objects to anon, authenticated, service_role;
grant all on storage.buckets to anon, authenticated, service_role;
grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text)
  to anon, authenticated, service_role;

-- public -------------------------------------------------------------------------------------
-- A new hosted project exposes nothing in `public` by itself: the API roles may use the schema,
-- but each table, sequence and function a migration creates needs its own GRANT (the platform's
-- default since 2026; the Supabase CLI's `auto_expose_new_tables = false`).
grant usage on schema public to anon, authenticated, service_role;
alter default privileges for role current_user in schema public
  grant all on tables to anon, authenticated, service_role;
alter default privileges for role current_user in schema public
  revoke select, insert, update, delete on tables from anon, authenticated, service_role;
alter default privileges for role current_user in schema public
  grant all on sequences to anon, authenticated, service_role;
alter default privileges for role current_user in schema public
  revoke usage, select on sequences from anon, authenticated, service_role;
alter default privileges for role current_user in schema public
  grant all on functions to anon, authenticated, service_role;
alter default privileges for role current_user in schema public
  revoke execute on functions from anon, authenticated, service_role;

-- schema cache reloading ---------------------------------------------------------------------
-- A hosted project has two event triggers, `pgrst_ddl_watch` (ddl_command_end) and
-- `pgrst_drop_watch` (sql_drop), that tell PostgREST to read its schema cache again after DDL
-- (`NOTIFY pgrst, 'reload schema'`). The stand-in's PostgREST
-- (packages/local-stack/src/postgrest/routines.ts) keeps its cache of functions until this counter
-- moves: the triggers here count every DDL command in the transaction that runs it, so the new
-- count is seen exactly when the change is.
create schema if not exists local_stack;
create table if not exists local_stack.schema_version (
  id boolean primary key default true check (id),
  version bigint not null default 0
);
insert into local_stack.schema_version (id, version) values (true, 0) on conflict (id) do nothing;

create or replace function local_stack.count_ddl() returns event_trigger
  language plpgsql security definer set search_path = '' as $$
begin
  update local_stack.schema_version set version = version + 1;
end
$$;
revoke all on function local_stack.count_ddl() from public;

do $$
begin
  if not exists (select 1 from pg_event_trigger where evtname = 'pgrst_ddl_watch') then
    create event trigger pgrst_ddl_watch on ddl_command_end execute function local_stack.count_ddl();
  end if;
  if not exists (select 1 from pg_event_trigger where evtname = 'pgrst_drop_watch') then
    create event trigger pgrst_drop_watch on sql_drop execute function local_stack.count_ddl();
  end if;
end
$$;
