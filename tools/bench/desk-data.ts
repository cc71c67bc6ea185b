// The desk's large data set, for the bench only (never the demo): students who bought a program,
// with progress for most of them, and consultation requests, written straight into the stack's
// database in a few set-based statements. The bench then times /desk on it, so a desk with 10,000
// students and 50,000 leads is measured as the team would meet it (docs/performance.md).
import type { Sql } from "@advisor-accelerator/local-stack";

/** How large: the figures the desk must stay fast with (docs/architecture.md, Budgets). */
export const DESK_DATA = { students: 10_000, leads: 50_000 };

/** What the seed wrote, for the report. */
export interface DeskDataReport {
  students: number;
  leads: number;
  ms: number;
}

/**
 * Writes `students` customers (an account, a Stripe customer, a completed order of one of
 * `programs` in turn, progress in its lessons for three in four of them) and `leads` consultation
 * requests (a fifth of them past "new"), spread over the last year. The order and progress rows go
 * through the tables' triggers, as the webhook's and the player's do, so the desk reads what it
 * would in production.
 */
export async function seedDeskData(
  db: Sql,
  {
    students = DESK_DATA.students,
    leads = DESK_DATA.leads,
    programs = [
      { key: "GROWTH_MINDSET", program: "growth-mindset" },
      { key: "OS_ACCELERATOR", program: "os-accelerator" },
      { key: "AI_ACCELERATOR", program: "ai-advisor-accelerator" },
    ],
  }: { students?: number; leads?: number; programs?: { key: string; program: string }[] } = {},
): Promise<DeskDataReport> {
  const started = Date.now();
  const keys = `array[${programs.map((p) => `'${p.key}'`).join(", ")}]`;
  const slugs = `array[${programs.map((p) => `'${p.program}'`).join(", ")}]`;
  // One batch of statements: one connection, so the temporary table is there for all of them.
  await db.exec(`
    create temporary table bench_students as
    select i,
      ('b0000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid as id,
      'student' || i || '@bench.example' as email,
      (${keys})[1 + i % ${programs.length}] as product_key,
      (${slugs})[1 + i % ${programs.length}] as program,
      now() - make_interval(mins => i * 37 % 525600) as bought
    from generate_series(1, ${students}) as i;
    insert into auth.users (instance_id, id, aud, role, email, email_confirmed_at, last_sign_in_at,
      raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
    select '00000000-0000-0000-0000-000000000000', id, 'authenticated', 'authenticated', email, bought,
      bought + make_interval(days => i % 30), '{"provider": "email", "providers": ["email"]}', '{}', bought, bought
    from bench_students;
    insert into public.profiles (id, full_name)
    select id, 'Bench Student ' || i from bench_students;
    insert into public.stripe_customers (user_id, customer_id)
    select id, 'cus_bench' || i from bench_students;
    insert into public.stripe_orders (checkout_session_id, customer_id, product_key, amount_subtotal, amount_total,
      currency, payment_status, status, created_at)
    select 'cs_test_bench' || i, 'cus_bench' || i, product_key, 30000, 30000, 'usd', 'paid', 'completed', bought
    from bench_students;
    insert into public.lesson_progress (user_id, lesson_id, completed, video_position)
    select s.id, s.program || '/bench-lesson-' || n, n < 3, 0
    from bench_students s, generate_series(1, 3) as n
    where s.i % 4 <> 0;
    insert into public.leads (created_at, name, email, page, utm_source, status, notify_status, confirm_status)
    select now() - make_interval(mins => i * 11 % 525600), 'Bench Lead ' || i, 'lead' || i || '@bench.example',
      '/get-started', case when i % 4 = 0 then 'newsletter' end,
      case when i % 5 = 0 then 'contacted' else 'new' end, 'sent', 'none'
    from generate_series(1, ${leads}) as i;
    drop table bench_students;
    analyze;
  `);
  return { students, leads, ms: Date.now() - started };
}
