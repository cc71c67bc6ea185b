-- The team (docs/operations.md, "The team and its roles"): who is staff, and what staff read and
-- change, decided here and nowhere else. The desk (/desk) reads with the staff member's own token,
-- through the same row level security as every customer; no service key reaches a browser.
--
-- 1. `staff`: one row per staff member and their role, `coach` or `admin`. Written only by the
--    service role (`npm run staff`); nothing a user can write makes anyone staff.
-- 2. `is_staff(role)`: the one question every policy below asks. `is_staff('coach')` is any staff
--    member, `is_staff('admin')` an admin only.
-- 3. Leads: admins read them, and change a lead's status and note (`desk_update_lead`); each
--    change is kept in `lead_events`, with who made it and when. Search by name or e-mail uses
--    trigram indexes.
-- 4. Students: `enrolments` (the programs each customer bought, without what they paid) and
--    `student_activity` (their progress per program), kept by triggers; the view `desk_students`
--    joins them for coaches and admins.
-- 5. Orders: admins read every order, customer record, payment held for review and dispute; the
--    view `desk_orders` names each order's buyer.
--
-- Customers are untouched: every policy added here is for staff, and the customer's own views
-- (stripe_user_orders) keep filtering on the caller.

create extension if not exists pg_trgm with schema extensions;

-- 1. Staff -----------------------------------------------------------------------------------------
create table public.staff (
  user_id uuid primary key references auth.users (id) on delete cascade,
  role text not null check (role in ('coach', 'admin')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.staff is
  'The business''s team and their roles (coach: students and progress; admin: also leads and orders). Written by the service role only (npm run staff).';

create trigger staff_touch_updated_at before update on public.staff
  for each row execute function public.touch_updated_at();

alter table public.staff enable row level security;
revoke all on public.staff from anon, authenticated, service_role;
grant select on public.staff to authenticated;
grant select, insert, update, delete on public.staff to service_role;

-- 2. is_staff ----------------------------------------------------------------------------------------
-- Security definer, so that a policy on `staff` itself can ask it without recursing; a fixed, empty
-- search_path, so nothing a caller creates can stand in for the tables it names.
create function public.is_staff(p_role text default 'coach') returns boolean
  language sql stable security definer set search_path = ''
as $$
  select exists (
    select 1 from public.staff s
    where s.user_id = (select auth.uid())
      and (s.role = 'admin' or (p_role = 'coach' and s.role = 'coach'))
  )
$$;
comment on function public.is_staff(text) is
  'Whether the caller is staff in the role asked: coach (any staff member) or admin.';
revoke execute on function public.is_staff(text) from public, anon;
grant execute on function public.is_staff(text) to authenticated, service_role;

-- The command's side (`npm run staff`, the service role only): make an account staff in a role,
-- take it away, list the team. Accounts are found by e-mail address, as Auth stores them (lower
-- case); one with no account yet is invited first, then added.
create function public.staff_add(p_email text, p_role text) returns jsonb
  language plpgsql security definer set search_path = ''
as $$
declare
  v_id uuid;
  v_email text;
  v_confirmed boolean;
  v_before text;
begin
  if p_role is null or p_role not in ('coach', 'admin') then
    raise exception 'The role must be coach or admin, not "%"', p_role using errcode = '22023';
  end if;
  select u.id, u.email::text, u.email_confirmed_at is not null into v_id, v_email, v_confirmed
  from auth.users u where u.email = lower(trim(p_email));
  if v_id is null then
    return jsonb_build_object('found', false);
  end if;
  select s.role into v_before from public.staff s where s.user_id = v_id;
  insert into public.staff (user_id, role) values (v_id, p_role)
  on conflict (user_id) do update set role = excluded.role;
  return jsonb_build_object(
    'found', true, 'user_id', v_id, 'email', v_email, 'confirmed', v_confirmed, 'previous_role', v_before
  );
end
$$;

create function public.staff_remove(p_email text) returns text
  language sql security definer set search_path = ''
as $$
  delete from public.staff s using auth.users u
  where u.id = s.user_id and u.email = lower(trim(p_email))
  returning s.role
$$;

create function public.staff_list() returns table (email text, role text, since timestamptz, last_sign_in_at timestamptz)
  language sql stable security definer set search_path = ''
as $$
  select u.email::text, s.role, s.created_at, u.last_sign_in_at
  from public.staff s join auth.users u on u.id = s.user_id
  order by s.role, u.email
$$;
revoke execute on function public.staff_add(text, text), public.staff_remove(text), public.staff_list()
  from public, anon, authenticated;
grant execute on function public.staff_add(text, text), public.staff_remove(text), public.staff_list()
  to service_role;

create policy "Staff read their own role" on public.staff
  for select to authenticated using (user_id = (select auth.uid()));
create policy "Admins read the team" on public.staff
  for select to authenticated using ((select public.is_staff('admin')));

-- 3. Leads ---------------------------------------------------------------------------------------
alter table public.leads
  add column status text not null default 'new' check (status in ('new', 'contacted', 'booked', 'won', 'lost')),
  add column note text not null default '' check (char_length(note) <= 2000),
  add column status_changed_at timestamptz,
  add column updated_at timestamptz;
comment on column public.leads.status is 'Where the team is with the request: new, contacted, booked, won or lost (the desk).';
comment on column public.leads.note is 'The team''s short note on the request (the desk).';

-- Each change of a lead's status or note: who made it and when.
create table public.lead_events (
  id bigint generated always as identity primary key,
  lead_id uuid not null references public.leads (id) on delete cascade,
  created_at timestamptz not null default now(),
  -- Who made it (null: the service role, or a staff member since removed), and their address then.
  user_id uuid references auth.users (id) on delete set null,
  user_email text check (char_length(user_email) <= 320),
  status text not null check (status in ('new', 'contacted', 'booked', 'won', 'lost')),
  note text not null check (char_length(note) <= 2000)
);
comment on table public.lead_events is
  'Each change of a lead''s status or note, with who made it and when. Admins read; written by the database only.';
create index lead_events_lead_idx on public.lead_events (lead_id, created_at desc);

alter table public.lead_events enable row level security;
revoke all on public.lead_events from anon, authenticated, service_role;
grant select on public.lead_events to authenticated, service_role;
create policy "Admins read the leads' history" on public.lead_events
  for select to authenticated using ((select public.is_staff('admin')));

create function public.leads_record_change() returns trigger
  language plpgsql security definer set search_path = ''
as $$
begin
  if new.status is distinct from old.status or new.note is distinct from old.note then
    new.updated_at := now();
    if new.status is distinct from old.status then
      new.status_changed_at := now();
    end if;
    insert into public.lead_events (lead_id, user_id, user_email, status, note)
    values (
      new.id,
      auth.uid(),
      (select u.email::text from auth.users u where u.id = auth.uid()),
      new.status,
      new.note
    );
  end if;
  return new;
end
$$;
revoke execute on function public.leads_record_change() from public, anon, authenticated, service_role;
create trigger leads_record_change before update on public.leads
  for each row execute function public.leads_record_change();

drop policy "No client reads or writes leads" on public.leads;
create policy "Admins read leads" on public.leads
  for select to authenticated using ((select public.is_staff('admin')));
-- The request and its attribution; not the e-mails' bookkeeping.
grant select (
  id, created_at, name, email, phone, firm, aum, help, page,
  utm_source, utm_medium, utm_campaign, utm_term, utm_content, referrer, landing_page,
  status, note, status_changed_at, updated_at
) on public.leads to authenticated;

-- The one write the desk makes to a lead: its status and note, by an admin. A function rather than
-- an UPDATE grant, so that anyone else is refused outright (403), not shown "0 rows changed".
create function public.desk_update_lead(p_id uuid, p_status text, p_note text) returns jsonb
  language plpgsql security definer set search_path = ''
as $$
declare
  v_lead public.leads;
begin
  if not public.is_staff('admin') then
    raise exception 'Only the team''s admins change leads' using errcode = '42501';
  end if;
  if p_status is null or p_status not in ('new', 'contacted', 'booked', 'won', 'lost') then
    raise exception 'A lead''s status is new, contacted, booked, won or lost, not "%"', p_status using errcode = '22023';
  end if;
  if char_length(coalesce(p_note, '')) > 2000 then
    raise exception 'A note is at most 2000 characters' using errcode = '22023';
  end if;
  update public.leads set status = p_status, note = coalesce(p_note, '') where id = p_id returning * into v_lead;
  if v_lead.id is null then
    -- PostgREST answers an error raised as PTnnn with that HTTP status.
    raise exception 'No lead %', p_id using errcode = 'PT404';
  end if;
  return jsonb_build_object(
    'id', v_lead.id, 'status', v_lead.status, 'note', v_lead.note,
    'status_changed_at', v_lead.status_changed_at, 'updated_at', v_lead.updated_at
  );
end
$$;
revoke execute on function public.desk_update_lead(uuid, text, text) from public, anon;
grant execute on function public.desk_update_lead(uuid, text, text) to authenticated;

-- Newest first, by status, and search by name or e-mail (ILIKE '%…%', served by trigram indexes).
create index leads_status_created_at_idx on public.leads (status, created_at desc);
create index leads_name_trgm_idx on public.leads using gin (name extensions.gin_trgm_ops);
create index leads_email_trgm_idx on public.leads using gin (email extensions.gin_trgm_ops);

-- 4. Students ------------------------------------------------------------------------------------
-- A program bought: one row per order that granted it (completed), or did until a refund or a
-- dispute. What the buyer paid stays in stripe_orders, which coaches do not read.
create table public.enrolments (
  order_id bigint primary key references public.stripe_orders (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  product_key text not null,
  cohort_start date,
  purchased_at timestamptz not null,
  status public.order_status not null check (status in ('completed', 'refunded', 'disputed'))
);
comment on table public.enrolments is
  'Programs bought, per order, without amounts: kept from stripe_orders by a trigger. Staff read.';
create index enrolments_product_purchased_idx on public.enrolments (product_key, purchased_at desc);
create index enrolments_product_cohort_idx on public.enrolments (product_key, cohort_start, purchased_at desc);
create index enrolments_purchased_idx on public.enrolments (purchased_at desc);
create index enrolments_user_idx on public.enrolments (user_id);

-- Progress per customer and program ('<program>' of the lesson ids '<program>/<slug>'): lessons
-- completed, and the lesson last worked in (the newest progress row) and when.
create table public.student_activity (
  user_id uuid not null references auth.users (id) on delete cascade,
  program text not null,
  lessons_completed integer not null default 0,
  last_lesson_id text,
  last_activity_at timestamptz,
  primary key (user_id, program)
);
comment on table public.student_activity is
  'Each customer''s progress per program, kept from lesson_progress by a trigger. Staff read.';
create index student_activity_program_idx on public.student_activity (program, last_activity_at);

alter table public.enrolments enable row level security;
alter table public.student_activity enable row level security;
revoke all on public.enrolments, public.student_activity from anon, authenticated, service_role;
grant select on public.enrolments, public.student_activity to authenticated, service_role;
create policy "Staff read enrolments" on public.enrolments
  for select to authenticated using ((select public.is_staff('coach')));
create policy "Staff read students' activity" on public.student_activity
  for select to authenticated using ((select public.is_staff('coach')));

create function public.enrolments_from_order() returns trigger
  language plpgsql security definer set search_path = ''
as $$
declare
  v_user uuid := (select c.user_id from public.stripe_customers c where c.customer_id = new.customer_id);
begin
  if new.status in ('completed', 'refunded', 'disputed') and new.deleted_at is null and v_user is not null then
    insert into public.enrolments (order_id, user_id, product_key, cohort_start, purchased_at, status)
    values (new.id, v_user, new.product_key, new.cohort_start, new.created_at, new.status)
    on conflict (order_id) do update
      set user_id = excluded.user_id, product_key = excluded.product_key, cohort_start = excluded.cohort_start,
          purchased_at = excluded.purchased_at, status = excluded.status;
  else
    delete from public.enrolments where order_id = new.id;
  end if;
  return null;
end
$$;
revoke execute on function public.enrolments_from_order() from public, anon, authenticated, service_role;
create trigger stripe_orders_enrolments after insert or update on public.stripe_orders
  for each row execute function public.enrolments_from_order();

create function public.student_activity_from_progress() returns trigger
  language plpgsql security definer set search_path = ''
as $$
declare
  v_program text := split_part(new.lesson_id, '/', 1);
begin
  insert into public.student_activity (user_id, program, lessons_completed, last_lesson_id, last_activity_at)
  values (
    new.user_id,
    v_program,
    (select count(*) from public.lesson_progress p
      where p.user_id = new.user_id and split_part(p.lesson_id, '/', 1) = v_program and p.completed),
    new.lesson_id,
    new.updated_at
  )
  on conflict (user_id, program) do update
    set lessons_completed = excluded.lessons_completed,
        last_lesson_id = excluded.last_lesson_id,
        last_activity_at = excluded.last_activity_at;
  return null;
end
$$;
revoke execute on function public.student_activity_from_progress() from public, anon, authenticated, service_role;
create trigger lesson_progress_student_activity after insert or update on public.lesson_progress
  for each row execute function public.student_activity_from_progress();

-- What the triggers would have written for the rows already here.
insert into public.enrolments (order_id, user_id, product_key, cohort_start, purchased_at, status)
select o.id, c.user_id, o.product_key, o.cohort_start, o.created_at, o.status
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
where o.status in ('completed', 'refunded', 'disputed') and o.deleted_at is null;

insert into public.student_activity (user_id, program, lessons_completed, last_lesson_id, last_activity_at)
select distinct on (p.user_id, split_part(p.lesson_id, '/', 1))
  p.user_id,
  split_part(p.lesson_id, '/', 1),
  count(*) filter (where p.completed) over (partition by p.user_id, split_part(p.lesson_id, '/', 1)),
  p.lesson_id,
  p.updated_at
from public.lesson_progress p
order by p.user_id, split_part(p.lesson_id, '/', 1), p.updated_at desc;

-- Staff read the programs' settings (their ids and names) and the customers' profiles and
-- progress, row by row: the customer's own pages ask for their own rows by id.
create policy "Staff read course programs" on public.course_programs
  for select to authenticated using ((select public.is_staff('coach')));
grant select on public.course_programs to authenticated;
create policy "Staff read profiles" on public.profiles
  for select to authenticated using ((select public.is_staff('coach')));
create policy "Staff read progress" on public.lesson_progress
  for select to authenticated using ((select public.is_staff('coach')));

-- The account behind a user id, for the desk: the e-mail address and the last sign-in, which
-- live in auth.users where no client reads. Admins may ask of anyone, coaches of their students;
-- anyone else gets null. A high cost, so that a page of rows asks only for the rows it shows.
create function public.desk_email(p_user uuid) returns text
  language sql stable security definer set search_path = '' cost 1000
as $$
  select u.email::text from auth.users u
  where u.id = p_user
    and (public.is_staff('admin')
      or (public.is_staff('coach') and exists (select 1 from public.enrolments e where e.user_id = p_user)))
$$;
create function public.desk_last_sign_in(p_user uuid) returns timestamptz
  language sql stable security definer set search_path = '' cost 1000
as $$
  select u.last_sign_in_at from auth.users u
  where u.id = p_user
    and (public.is_staff('admin')
      or (public.is_staff('coach') and exists (select 1 from public.enrolments e where e.user_id = p_user)))
$$;
revoke execute on function public.desk_email(uuid), public.desk_last_sign_in(uuid) from public, anon;
grant execute on function public.desk_email(uuid), public.desk_last_sign_in(uuid) to authenticated, service_role;

-- A student per program bought: who, when, which cohort, how far, and when they were last active
-- (their last progress, or the purchase when there is none). security_invoker: the caller's own
-- policies decide, so a customer reads no row of it.
create view public.desk_students with (security_invoker = true) as
select
  e.order_id,
  e.user_id,
  e.product_key,
  cp.program,
  e.cohort_start,
  e.purchased_at,
  e.status,
  p.full_name,
  public.desk_email(e.user_id) as email,
  public.desk_last_sign_in(e.user_id) as last_sign_in_at,
  coalesce(a.lessons_completed, 0) as lessons_completed,
  a.last_lesson_id,
  a.last_activity_at,
  coalesce(a.last_activity_at, e.purchased_at) as last_active_at
from public.enrolments e
left join public.course_programs cp on cp.product_key = e.product_key
left join public.student_activity a on a.user_id = e.user_id and a.program = cp.program
left join public.profiles p on p.id = e.user_id;
comment on view public.desk_students is 'The desk''s students: one row per program bought. Staff only, by the tables'' policies.';
revoke all on public.desk_students from anon, authenticated;
grant select on public.desk_students to authenticated;

-- 5. Orders ------------------------------------------------------------------------------------------
create policy "Admins read every order" on public.stripe_orders
  for select to authenticated using ((select public.is_staff('admin')));
create policy "Admins read every customer record" on public.stripe_customers
  for select to authenticated using ((select public.is_staff('admin')));

drop policy "No client reads or writes payment reviews" on public.stripe_payment_reviews;
create policy "Admins read payments held for review" on public.stripe_payment_reviews
  for select to authenticated using ((select public.is_staff('admin')));
grant select on public.stripe_payment_reviews to authenticated;
drop policy "No client reads or writes disputes" on public.stripe_disputes;
create policy "Admins read disputes" on public.stripe_disputes
  for select to authenticated using ((select public.is_staff('admin')));
grant select on public.stripe_disputes to authenticated;

-- Every order with its buyer and, when the payment is disputed, the dispute's status and reason.
create view public.desk_orders with (security_invoker = true) as
select
  o.id as order_id,
  o.checkout_session_id,
  o.payment_intent_id,
  o.product_key,
  o.amount_total,
  o.currency,
  o.status,
  o.payment_status,
  o.created_at,
  o.status_changed_at,
  o.cohort_start,
  o.receipt_url,
  c.user_id,
  p.full_name,
  public.desk_email(c.user_id) as email,
  d.status as dispute_status,
  d.reason as dispute_reason
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
left join public.profiles p on p.id = c.user_id
left join lateral (
  select x.status, x.reason from public.stripe_disputes x
  where x.checkout_session_id = o.checkout_session_id
  order by x.created_at desc limit 1
) d on true
-- A customer's policies let them read their own orders: the view is the desk's, so it asks too.
where o.deleted_at is null and (select public.is_staff('admin'));
comment on view public.desk_orders is 'The desk''s orders, with each buyer. Admins only, by the tables'' policies.';
revoke all on public.desk_orders from anon, authenticated;
grant select on public.desk_orders to authenticated;

-- The orders of each month, in the program's time zone, per program and status: the desk's totals.
create view public.desk_order_totals with (security_invoker = true) as
select
  (date_trunc('month', o.created_at at time zone coalesce(cp.time_zone, 'UTC')))::date as month,
  o.product_key,
  o.status::text as status,
  o.currency,
  count(*)::integer as orders,
  sum(o.amount_total)::bigint as amount
from public.stripe_orders o
left join public.course_programs cp on cp.product_key = o.product_key
where o.deleted_at is null and (select public.is_staff('admin'))
group by 1, 2, 3, 4;
comment on view public.desk_order_totals is 'Orders per month, program and status. Admins only, by the tables'' policies.';
revoke all on public.desk_order_totals from anon, authenticated;
grant select on public.desk_order_totals to authenticated;

create index stripe_orders_created_at_idx on public.stripe_orders (created_at desc);
create index stripe_orders_status_created_at_idx on public.stripe_orders (status, created_at desc);
