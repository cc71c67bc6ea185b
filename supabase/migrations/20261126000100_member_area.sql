-- The member area: the programs' courses, readable only by their buyers, and each customer's
-- progress through them.
-- 1. `course_programs`: each program's course settings (cohort start days, time zone).
-- 2. `course_lessons`: every lesson with its body (HTML), video and downloads, published from
--    content/lessons/ by `npm run course:publish` (service role). Never on the public CDN.
-- 3. The access rule, in functions with a fixed search_path that policies call:
--    `has_program_access` (a completed order for the program: a refund or a lost dispute moves
--    the order out of `completed`, and access ends at once; a later purchase is a new completed
--    order, and access returns), `program_start_date` (the day the buyer's weeks count from),
--    `lesson_unlocks_at` (a cohort lesson's opening instant) and `can_read_lesson`.
-- 4. `lesson_progress`: the customer's own rows, one per lesson: done, and a video's position.
-- 5. The private bucket `course-downloads`, read through signed URLs under the lessons' rule.
-- 6. `publish_course`: one program's course in one transaction; what is unchanged is left alone,
--    and a lesson no longer in content is hidden (its readers' progress stays).

-- 1. Programs --------------------------------------------------------------------------------
create table public.course_programs (
  -- The program's checkout key (content/programs/*.yaml `checkoutKey`), as orders name it.
  product_key text primary key check (product_key ~ '^[A-Z][A-Z0-9_]*$'),
  -- The program's id in content/programs (its file name), as the portal's addresses name it.
  program text not null unique check (program ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  name text not null check (char_length(name) between 1 and 200),
  -- A cohort program's start days; a buyer joins the first on or after the day they buy.
  cohort_starts date[] not null default '{}',
  -- Where days begin: cohort starts and unlock days are midnight here.
  time_zone text not null default 'UTC' check (char_length(time_zone) <= 64),
  updated_at timestamptz not null default now()
);
comment on table public.course_programs is
  'Course settings per program, published from content/ by npm run course:publish. Service role only.';

alter table public.course_programs enable row level security;
create policy "No client reads or writes course programs" on public.course_programs
  for all to anon, authenticated using (false) with check (false);
revoke all on public.course_programs from anon, authenticated, service_role;
grant select, insert, update on public.course_programs to service_role;

-- 2. Lessons -----------------------------------------------------------------------------------
create table public.course_lessons (
  -- '<program>/<slug>': the lesson's file in content/lessons/ and its address in the portal.
  id text primary key check (id ~ '^[a-z0-9]+(-[a-z0-9]+)*/[a-z0-9]+(-[a-z0-9]+)*$' and char_length(id) <= 200),
  product_key text not null references public.course_programs (product_key) on update cascade,
  module integer not null check (module >= 1),
  position integer not null check (position >= 1),
  title text not null check (char_length(title) between 1 and 200),
  duration_minutes integer not null check (duration_minutes between 1 and 600),
  summary text not null check (char_length(summary) <= 1000),
  -- The lesson's teaching, as the site's build rendered its MDX.
  body_html text not null check (octet_length(body_html) <= 1048576),
  -- {"provider": "wistia", "id": "<media id>"}, or null.
  video jsonb check (video is null or (jsonb_typeof(video) = 'object' and video ? 'provider' and video ? 'id')),
  -- [{"title", "path" (in the course-downloads bucket), "size", "type"}].
  downloads jsonb not null default '[]'::jsonb check (jsonb_typeof(downloads) = 'array'),
  -- Readable by any signed-in user.
  free_preview boolean not null default false,
  -- Cohort week the lesson opens (1: the cohort's first day); null opens it with the purchase.
  unlock_week integer check (unlock_week >= 1),
  -- What the publisher compares: a lesson whose hash is unchanged is not written again.
  content_hash text not null,
  -- Set when the lesson left content/; a hidden lesson is read by no one.
  removed_at timestamptz,
  published_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.course_lessons is
  'The programs'' lessons. Signed-in users read a lesson they may take (can_read_lesson); only the service role writes.';
create index course_lessons_product_key_idx on public.course_lessons (product_key, module, position);
create index course_lessons_downloads_idx on public.course_lessons using gin (downloads jsonb_path_ops);

alter table public.course_lessons enable row level security;
revoke all on public.course_lessons from anon, authenticated, service_role;
grant select on public.course_lessons to authenticated;
grant select, insert, update on public.course_lessons to service_role;

-- 3. The access rule -------------------------------------------------------------------------
-- Each function answers for the caller only ((select auth.uid()), the request's JWT), and runs as
-- its owner so that a policy calling it does not run the orders' own policies row by row.

-- True when the caller has a completed order for the program.
create function public.has_program_access(p_product_key text) returns boolean
  language sql stable security definer set search_path = ''
as $$
  select exists (
    select 1
    from public.stripe_orders o
    join public.stripe_customers c on c.customer_id = o.customer_id
    where c.user_id = (select auth.uid())
      and c.deleted_at is null
      and o.deleted_at is null
      and o.product_key = p_product_key
      and o.status = 'completed'
  )
$$;
comment on function public.has_program_access(text) is
  'Whether the caller has a completed (not refunded, disputed or failed) order for the program.';

-- The day the caller's course counts from: for a cohort program the first cohort start on or
-- after the day of their earliest completed order, else that day (in the program's time zone).
-- Null without access.
create function public.program_start_date(p_product_key text) returns date
  language sql stable security definer set search_path = ''
as $$
  select coalesce(
    (select min(s) from unnest(p.cohort_starts) s where s >= purchase.day),
    purchase.day
  )
  from public.course_programs p
  cross join lateral (
    select min((o.created_at at time zone p.time_zone)::date) as day
    from public.stripe_orders o
    join public.stripe_customers c on c.customer_id = o.customer_id
    where c.user_id = (select auth.uid())
      and c.deleted_at is null
      and o.deleted_at is null
      and o.product_key = p.product_key
      and o.status = 'completed'
  ) purchase
  where p.product_key = p_product_key and purchase.day is not null
$$;
comment on function public.program_start_date(text) is
  'The day the caller''s course of this program counts from (cohort start or purchase day); null without access.';

-- The instant a lesson of week `p_unlock_week` opens for the caller: midnight, in the program's
-- time zone, of the start day plus (week - 1) weeks. Null without access.
create function public.lesson_unlocks_at(p_product_key text, p_unlock_week integer) returns timestamptz
  language sql stable security definer set search_path = ''
as $$
  select ((public.program_start_date(p_product_key) + (p_unlock_week - 1) * 7)::timestamp) at time zone p.time_zone
  from public.course_programs p
  where p.product_key = p_product_key
$$;
comment on function public.lesson_unlocks_at(text, integer) is
  'When a cohort lesson of that week opens for the caller; null without access.';

-- Whether the caller may read the lesson now: a free preview, or access to its program and, for
-- a cohort lesson, its week reached. A hidden (removed) lesson is read by no one.
create function public.can_read_lesson(p_lesson_id text) returns boolean
  language sql stable security definer set search_path = ''
as $$
  select coalesce((
    select l.free_preview or (
      public.has_program_access(l.product_key)
      and (l.unlock_week is null or public.lesson_unlocks_at(l.product_key, l.unlock_week) <= now())
    )
    from public.course_lessons l
    where l.id = p_lesson_id and l.removed_at is null
  ), false)
$$;
comment on function public.can_read_lesson(text) is
  'Whether the caller may read the lesson now (free preview, or a completed order and its week reached).';

revoke execute on function public.has_program_access(text), public.program_start_date(text),
  public.lesson_unlocks_at(text, integer), public.can_read_lesson(text) from public, anon;
grant execute on function public.has_program_access(text), public.program_start_date(text),
  public.lesson_unlocks_at(text, integer), public.can_read_lesson(text) to authenticated, service_role;

create policy "Users read the lessons they may take" on public.course_lessons
  for select to authenticated using (public.can_read_lesson(id));

-- 4. Progress --------------------------------------------------------------------------------
-- No foreign key to course_lessons: supabase/seed.sql writes the demo customer's progress before
-- the course is published, and a hidden lesson keeps its readers' progress. The write policies
-- admit only lessons the writer may read now.
create table public.lesson_progress (
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  lesson_id text not null check (char_length(lesson_id) <= 200),
  completed boolean not null default false,
  -- Set by the database when `completed` becomes true; cleared when it becomes false.
  completed_at timestamptz,
  -- Where the lesson's video was left, in whole seconds.
  video_position integer not null default 0 check (video_position between 0 and 86400),
  updated_at timestamptz not null default now(),
  primary key (user_id, lesson_id)
);
comment on table public.lesson_progress is
  'Each customer''s progress per lesson: done, and the video''s position. Owner only.';

create function public.lesson_progress_stamp() returns trigger
  language plpgsql set search_path = ''
as $$
begin
  if new.completed and (tg_op = 'INSERT' or not old.completed) then
    new.completed_at := now();
  elsif not new.completed then
    new.completed_at := null;
  else
    new.completed_at := old.completed_at;
  end if;
  new.updated_at := now();
  return new;
end
$$;
revoke execute on function public.lesson_progress_stamp() from public, anon, authenticated, service_role;
create trigger lesson_progress_stamp before insert or update on public.lesson_progress
  for each row execute function public.lesson_progress_stamp();

alter table public.lesson_progress enable row level security;
revoke all on public.lesson_progress from anon, authenticated, service_role;
grant select on public.lesson_progress to authenticated;
-- The player saves by upsert (insert, or update on conflict), which sets every column it sends.
grant insert (user_id, lesson_id, completed, video_position), update (user_id, lesson_id, completed, video_position)
  on public.lesson_progress to authenticated;
grant select, insert, update on public.lesson_progress to service_role;

create policy "Users read their own progress" on public.lesson_progress
  for select to authenticated using (user_id = (select auth.uid()));
create policy "Users record progress in lessons they may take" on public.lesson_progress
  for insert to authenticated with check (user_id = (select auth.uid()) and public.can_read_lesson(lesson_id));
create policy "Users update their own progress in lessons they may take" on public.lesson_progress
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and public.can_read_lesson(lesson_id));

-- 5. Downloads -------------------------------------------------------------------------------
-- Private: no public URL. Objects are `<program>/<file>`, written by the publisher (service role);
-- a signed-in user may sign a URL for a file that a lesson they may read lists.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values (
  'course-downloads', 'course-downloads', false, 52428800,
  array[
    'application/pdf',
    'text/csv',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  ]
);

create function public.can_read_download(p_name text) returns boolean
  language sql stable security definer set search_path = ''
as $$
  select exists (
    select 1 from public.course_lessons l
    where l.downloads @> jsonb_build_array(jsonb_build_object('path', p_name))
      and public.can_read_lesson(l.id)
  )
$$;
comment on function public.can_read_download(text) is
  'Whether a file of the course-downloads bucket belongs to a lesson the caller may read now.';
revoke execute on function public.can_read_download(text) from public, anon;
grant execute on function public.can_read_download(text) to authenticated, service_role;

create policy "Users read the downloads of lessons they may take" on storage.objects
  for select to authenticated using (bucket_id = 'course-downloads' and public.can_read_download(name));

-- 6. Publishing ------------------------------------------------------------------------------
-- One program's course: its settings and its lessons (a JSON array of rows). A lesson whose
-- content_hash is unchanged is not written; a lesson of the program missing from the array is
-- hidden; a hidden one that returns is shown again. Answers what changed.
create function public.publish_course(p_program jsonb, p_lessons jsonb) returns jsonb
  language plpgsql set search_path = ''
as $$
declare
  v_key text := p_program ->> 'product_key';
  v_zone text := coalesce(p_program ->> 'time_zone', 'UTC');
  v_added integer;
  v_updated integer;
  v_removed integer;
begin
  if jsonb_typeof(p_lessons) is distinct from 'array' then
    raise exception 'publish_course: p_lessons must be a JSON array' using errcode = '22023';
  end if;
  -- An unknown time zone fails here, before anything is written.
  perform now() at time zone v_zone;

  insert into public.course_programs (product_key, program, name, cohort_starts, time_zone)
  values (
    v_key,
    p_program ->> 'program',
    p_program ->> 'name',
    coalesce(array(select jsonb_array_elements_text(p_program -> 'cohort_starts'))::date[], '{}'),
    v_zone
  )
  on conflict (product_key) do update set
    program = excluded.program,
    name = excluded.name,
    cohort_starts = excluded.cohort_starts,
    time_zone = excluded.time_zone,
    updated_at = now()
  where (public.course_programs.program, public.course_programs.name, public.course_programs.cohort_starts,
         public.course_programs.time_zone)
    is distinct from (excluded.program, excluded.name, excluded.cohort_starts, excluded.time_zone);

  with incoming as (
    select * from jsonb_to_recordset(p_lessons) as x(
      id text, module integer, position integer, title text, duration_minutes integer, summary text,
      body_html text, video jsonb, downloads jsonb, free_preview boolean, unlock_week integer,
      content_hash text
    )
  ),
  written as (
    insert into public.course_lessons (
      id, product_key, module, position, title, duration_minutes, summary, body_html, video,
      downloads, free_preview, unlock_week, content_hash
    )
    select id, v_key, module, position, title, duration_minutes, summary, body_html,
      nullif(video, 'null'::jsonb), coalesce(downloads, '[]'::jsonb), coalesce(free_preview, false),
      unlock_week, content_hash
    from incoming
    on conflict (id) do update set
      product_key = excluded.product_key,
      module = excluded.module,
      position = excluded.position,
      title = excluded.title,
      duration_minutes = excluded.duration_minutes,
      summary = excluded.summary,
      body_html = excluded.body_html,
      video = excluded.video,
      downloads = excluded.downloads,
      free_preview = excluded.free_preview,
      unlock_week = excluded.unlock_week,
      content_hash = excluded.content_hash,
      removed_at = null,
      updated_at = now()
    where public.course_lessons.content_hash is distinct from excluded.content_hash
      or public.course_lessons.removed_at is not null
      or public.course_lessons.product_key is distinct from excluded.product_key
    returning (xmax = 0) as inserted
  )
  select count(*) filter (where inserted), count(*) filter (where not inserted)
  into v_added, v_updated
  from written;

  update public.course_lessons set removed_at = now(), updated_at = now()
  where product_key = v_key
    and removed_at is null
    and id not in (select x ->> 'id' from jsonb_array_elements(p_lessons) x);
  get diagnostics v_removed = row_count;

  return jsonb_build_object(
    'added', v_added,
    'updated', v_updated,
    'removed', v_removed,
    'unchanged', jsonb_array_length(p_lessons) - v_added - v_updated
  );
end
$$;
comment on function public.publish_course(jsonb, jsonb) is
  'Publishes one program''s course from content (npm run course:publish). Service role only.';
revoke execute on function public.publish_course(jsonb, jsonb) from public, anon, authenticated;
grant execute on function public.publish_course(jsonb, jsonb) to service_role;
