/**
 * Generated from supabase/migrations/ by tools/db-types.ts (`npm run db:types`): do not edit by
 * hand; write a migration and run the command again. tests/tooling/database-types.test.ts fails
 * when this file and the migrations disagree.
 *
 * The database as the browser's client may reach it: what the migrations grant the `anon` and
 * `authenticated` roles, in the shape `supabase gen types typescript` writes. The app imports
 * src/lib/database.ts, which narrows the jsonb columns on top of these types.
 */

export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[];

export type Database = {
  public: {
    Tables: {
      /** Coached offers sent to applicants (docs/coached-offers.md). Written by the functions only; admins read them through desk_offers. */
      coached_offers: {
        Row: {
          /** The latest Stripe Checkout Session opened for the offer; an earlier one is expired at Stripe first. */
          checkout_session_id: string | null;
          /** The way to pay that session is for: in_full, or plan:<index in payment.options>. */
          chosen_option: string | null;
          cohort_start: string | null;
          created_at: string;
          created_by: string | null;
          email: string;
          expires_at: string;
          id: string;
          lead_id: string | null;
          list_price_cents: number;
          name: string;
          offer_key: string;
          opened_at: string | null;
          paid_at: string | null;
          payment: Json;
          price_cents: number;
          price_reason: string | null;
          product_key: string;
          withdrawn_at: string | null;
          withdrawn_by: string | null;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "coached_offers_lead_id_fkey";
            columns: ["lead_id"];
            isOneToOne: false;
            referencedRelation: "leads";
            referencedColumns: ["id"];
          },
        ];
      };
      /** The programs' lessons. Signed-in users read a lesson they may take (can_read_lesson); only the service role writes. */
      course_lessons: {
        Row: {
          body_html: string;
          content_hash: string;
          downloads: Json;
          duration_minutes: number;
          free_preview: boolean;
          id: string;
          module: number;
          position: number;
          product_key: string;
          published_at: string;
          removed_at: string | null;
          summary: string;
          title: string;
          unlock_week: number | null;
          updated_at: string;
          video: Json | null;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "course_lessons_product_key_fkey";
            columns: ["product_key"];
            isOneToOne: false;
            referencedRelation: "course_programs";
            referencedColumns: ["product_key"];
          },
        ];
      };
      /** Course settings per program, published from content/ by npm run course:publish. Service role only. */
      course_programs: {
        Row: {
          cohort_starts: string[];
          name: string;
          product_key: string;
          program: string;
          time_zone: string;
          updated_at: string;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
      /** Programs bought, per order, without amounts: kept from stripe_orders by a trigger. Staff read. */
      enrolments: {
        Row: {
          cohort_start: string | null;
          order_id: number;
          product_key: string;
          purchased_at: string;
          status: Database["public"]["Enums"]["order_status"];
          user_id: string;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "enrolments_order_id_fkey";
            columns: ["order_id"];
            isOneToOne: true;
            referencedRelation: "stripe_orders";
            referencedColumns: ["id"];
          },
        ];
      };
      /** Each change of a lead's status or note, with who made it and when. Admins read; written by the database only. */
      lead_events: {
        Row: {
          created_at: string;
          id: number;
          lead_id: string;
          note: string;
          status: string;
          user_email: string | null;
          user_id: string | null;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "lead_events_lead_id_fkey";
            columns: ["lead_id"];
            isOneToOne: false;
            referencedRelation: "leads";
            referencedColumns: ["id"];
          },
        ];
      };
      /** Consultation requests from the lead pages (functions/leads), with first-touch attribution, the business notification's status and the visitor confirmation's. Service role only. */
      leads: {
        Row: {
          aum: string | null;
          created_at: string;
          email: string;
          firm: string | null;
          help: string | null;
          id: string;
          landing_page: string | null;
          name: string;
          /** The team's short note on the request (the desk). */
          note: string;
          page: string;
          phone: string | null;
          referrer: string | null;
          /** Where the team is with the request: new, contacted, booked, won or lost (the desk). */
          status: string;
          status_changed_at: string | null;
          updated_at: string | null;
          utm_campaign: string | null;
          utm_content: string | null;
          utm_medium: string | null;
          utm_source: string | null;
          utm_term: string | null;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
      /** Each customer's progress per lesson: done, and the video's position. Owner only. */
      lesson_progress: {
        Row: {
          completed: boolean;
          completed_at: string | null;
          lesson_id: string;
          updated_at: string;
          user_id: string;
          video_position: number;
        };
        Insert: {
          completed?: boolean;
          lesson_id: string;
          user_id?: string;
          video_position?: number;
        };
        Update: {
          completed?: boolean;
          lesson_id?: string;
          user_id?: string;
          video_position?: number;
        };
        Relationships: [];
      };
      /** Coached offers' monthly memberships, started by the webhook at Stripe. Written by the webhook only. */
      memberships: {
        Row: {
          checkout_session_id: string;
          currency: string;
          ended_at: string | null;
          monthly_cents: number;
          starts_on: string;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "memberships_offer_id_fkey";
            columns: ["offer_id"];
            isOneToOne: true;
            referencedRelation: "coached_offers";
            referencedColumns: ["id"];
          },
        ];
      };
      /** Coached offers paid by monthly instalments: each plan's payments, those paid, and since when one is past due. Written by the webhook only. */
      payment_plans: {
        Row: {
          as_of: string;
          checkout_session_id: string | null;
          created_at: string;
          currency: string;
          ended_at: string | null;
          name: string;
          offer_id: string | null;
          paid_invoices: string[];
          past_due_since: string | null;
          payments: Json;
          product_key: string;
          subscription_id: string;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "payment_plans_offer_id_fkey";
            columns: ["offer_id"];
            isOneToOne: false;
            referencedRelation: "coached_offers";
            referencedColumns: ["id"];
          },
        ];
      };
      /** Contact details of each user, edited in the portal. Owner only. */
      profiles: {
        Row: {
          address: string | null;
          address_2: string | null;
          avatar_url: string | null;
          city: string | null;
          country: string | null;
          full_name: string | null;
          id: string;
          state: string | null;
          updated_at: string;
          zip: string | null;
        };
        Insert: {
          address?: string | null;
          address_2?: string | null;
          avatar_url?: string | null;
          city?: string | null;
          country?: string | null;
          full_name?: string | null;
          id: string;
          state?: string | null;
          zip?: string | null;
        };
        Update: {
          address?: string | null;
          address_2?: string | null;
          avatar_url?: string | null;
          city?: string | null;
          country?: string | null;
          full_name?: string | null;
          id?: string;
          state?: string | null;
          zip?: string | null;
        };
        Relationships: [];
      };
      /** The business's team and their roles (coach: students and progress; admin: also leads and orders). Written by the service role only (npm run staff). */
      staff: {
        Row: {
          created_at: string;
          role: string;
          updated_at: string;
          user_id: string;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
      /** Stripe customer per user; user_id is cleared when the account is deleted, the orders stay. Users read their own; only the service role writes. */
      stripe_customers: {
        Row: {
          created_at: string;
          customer_id: string;
          deleted_at: string | null;
          updated_at: string;
          user_id: string | null;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
      /** Disputed payments (chargebacks and inquiries), as Stripe's events told them; for the business to answer (docs/operations.md, Disputes). Service role only. */
      stripe_disputes: {
        Row: {
          amount: number | null;
          charge_id: string | null;
          checkout_session_id: string;
          created_at: string;
          currency: string | null;
          dispute_id: string;
          evidence_due_by: string | null;
          evidence_submitted_at: string | null;
          last_event_at: string;
          notified_at: string | null;
          notify_error: string | null;
          reason: string | null;
          status: string;
          updated_at: string;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "stripe_disputes_checkout_session_id_fkey";
            columns: ["checkout_session_id"];
            isOneToOne: false;
            referencedRelation: "stripe_orders";
            referencedColumns: ["checkout_session_id"];
          },
        ];
      };
      /** Orders, one per Checkout Session. Users read their own through stripe_user_orders; only the service role writes. */
      stripe_orders: {
        Row: {
          amount_subtotal: number;
          amount_total: number;
          /** First-touch attribution of the visit that bought: utm_*, referrer, landing_page (packages/shared/checkout-request.ts). */
          attribution: Json;
          checkout_session_id: string;
          /** Start day of the cohort the buyer joined (cohort programs; null for self-paced), in the program's time zone: chosen by stripe-checkout, recorded by the webhook. */
          cohort_start: string | null;
          created_at: string;
          currency: string;
          customer_id: string;
          deleted_at: string | null;
          id: number;
          payment_intent_id: string | null;
          payment_status: string;
          product_key: string;
          /** Stripe's hosted receipt of the payment (the charge's receipt_url), when Stripe has one. */
          receipt_url: string | null;
          status: Database["public"]["Enums"]["order_status"];
          /** When the order's status last changed (its insert, or a change stripe_orders_keep_progress let through); set by the database. */
          status_changed_at: string;
          updated_at: string;
        };
        Insert: never;
        Update: never;
        Relationships: [
          {
            foreignKeyName: "stripe_orders_customer_id_fkey";
            columns: ["customer_id"];
            isOneToOne: false;
            referencedRelation: "stripe_customers";
            referencedColumns: ["customer_id"];
          },
        ];
      };
      /** Stripe events whose payment was not the program's price: no order or access was granted. For the business to settle (docs/operations.md, Checkout and payments). Service role only. */
      stripe_payment_reviews: {
        Row: {
          amount_total: number | null;
          checkout_session_id: string;
          created_at: string;
          currency: string | null;
          customer_id: string | null;
          email: string | null;
          event_id: string;
          event_type: string;
          /** What the payment should have been: the program's price, or the coached offer's amount; null when no sent offer says. */
          expected_amount: number | null;
          expected_currency: string;
          notified_at: string | null;
          notify_error: string | null;
          product_key: string;
          reason: string;
          resolution: string | null;
          resolved_at: string | null;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
      /** Each customer's progress per program, kept from lesson_progress by a trigger. Staff read. */
      student_activity: {
        Row: {
          last_activity_at: string | null;
          last_lesson_id: string | null;
          lessons_completed: number;
          program: string;
          user_id: string;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
    };
    Views: {
      /** Offers sent, with their state (sent, opened, paid, expired, withdrawn), for admins. */
      desk_offers: {
        Row: {
          cohort_start: string | null;
          created_at: string | null;
          created_by: string | null;
          email: string | null;
          expires_at: string | null;
          id: string | null;
          lead_id: string | null;
          list_price_cents: number | null;
          name: string | null;
          offer_key: string | null;
          opened_at: string | null;
          paid_at: string | null;
          payment: Json | null;
          price_cents: number | null;
          price_reason: string | null;
          product_key: string | null;
          status: string | null;
          withdrawn_at: string | null;
          withdrawn_by: string | null;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
      /** Orders per month, program and status. Admins only, by the tables' policies. */
      desk_order_totals: {
        Row: {
          amount: number | null;
          currency: string | null;
          month: string | null;
          orders: number | null;
          product_key: string | null;
          status: string | null;
        };
        Relationships: [];
      };
      /** The desk's orders, with each buyer. Admins only, by the tables' policies. */
      desk_orders: {
        Row: {
          amount_total: number | null;
          checkout_session_id: string | null;
          cohort_start: string | null;
          created_at: string | null;
          currency: string | null;
          dispute_reason: string | null;
          dispute_status: string | null;
          email: string | null;
          full_name: string | null;
          order_id: number | null;
          payment_intent_id: string | null;
          payment_status: string | null;
          product_key: string | null;
          receipt_url: string | null;
          status: Database["public"]["Enums"]["order_status"] | null;
          status_changed_at: string | null;
          user_id: string | null;
        };
        Relationships: [];
      };
      /** The desk's students: one row per program bought. Staff only, by the tables' policies. */
      desk_students: {
        Row: {
          cohort_start: string | null;
          email: string | null;
          full_name: string | null;
          last_active_at: string | null;
          last_activity_at: string | null;
          last_lesson_id: string | null;
          last_sign_in_at: string | null;
          lessons_completed: number | null;
          order_id: number | null;
          product_key: string | null;
          program: string | null;
          purchased_at: string | null;
          status: Database["public"]["Enums"]["order_status"] | null;
          user_id: string | null;
        };
        Relationships: [];
      };
      stripe_user_orders: {
        Row: {
          amount_subtotal: number | null;
          amount_total: number | null;
          checkout_session_id: string | null;
          cohort_start: string | null;
          currency: string | null;
          customer_id: string | null;
          membership_ended_at: string | null;
          membership_monthly_cents: number | null;
          membership_starts_on: string | null;
          order_date: string | null;
          order_id: number | null;
          order_reference: string | null;
          order_status: Database["public"]["Enums"]["order_status"] | null;
          payment_intent_id: string | null;
          payment_status: string | null;
          plan_name: string | null;
          plan_paid: number | null;
          plan_past_due_since: string | null;
          plan_paused: boolean | null;
          plan_payments: Json | null;
          product_key: string | null;
          receipt_url: string | null;
          status_changed_at: string | null;
        };
        Relationships: [];
      };
    };
    Functions: {
      /** Whether a file of the course-downloads bucket belongs to a lesson the caller may read now. */
      can_read_download: { Args: { p_name: string }; Returns: boolean };
      /** Whether the caller may read the lesson now (free preview, or a completed order and its week reached). */
      can_read_lesson: { Args: { p_lesson_id: string }; Returns: boolean };
      desk_email: { Args: { p_user: string }; Returns: string };
      desk_last_sign_in: { Args: { p_user: string }; Returns: string };
      desk_update_lead: { Args: { p_id: string; p_status: string; p_note: string }; Returns: Json };
      desk_withdraw_offer: { Args: { p_id: string }; Returns: Json };
      /** Whether the caller has a completed (not refunded, disputed or failed) order for the program, not paused by a plan payment 14 days past due. */
      has_program_access: { Args: { p_product_key: string }; Returns: boolean };
      /** Whether the caller is staff in the role asked: coach (any staff member) or admin. */
      is_staff: { Args: { p_role?: string }; Returns: boolean };
      /** When a cohort lesson of that week opens for the caller; null without access. */
      lesson_unlocks_at: { Args: { p_product_key: string; p_unlock_week: number }; Returns: string };
      plan_grace: { Args: Record<PropertyKey, never>; Returns: string };
      plan_paused: { Args: { p_checkout_session_id: string }; Returns: boolean };
      /** The day the caller's course of this program counts from (their cohort's start, or the purchase day when self-paced); null without access. */
      program_start_date: { Args: { p_product_key: string }; Returns: string };
    };
    Enums: {
      order_email_kind: "access" | "payment_failed" | "refund";
      order_status: "pending" | "completed" | "disputed" | "canceled" | "refunded" | "failed";
    };
    CompositeTypes: {
      [_ in never]: never;
    };
  };
};

type Schema = Database["public"];

/** A table's or view's row: `Tables<"profiles">`. */
export type Tables<Name extends keyof (Schema["Tables"] & Schema["Views"])> = (Schema["Tables"] &
  Schema["Views"])[Name] extends { Row: infer Row }
  ? Row
  : never;

/** What an insert into a table may send: `TablesInsert<"profiles">`. */
export type TablesInsert<Name extends keyof Schema["Tables"]> = Schema["Tables"][Name] extends { Insert: infer Insert }
  ? Insert
  : never;

/** What an update of a table may send: `TablesUpdate<"profiles">`. */
export type TablesUpdate<Name extends keyof Schema["Tables"]> = Schema["Tables"][Name] extends { Update: infer Update }
  ? Update
  : never;

/** An enum's values: `Enums<"order_status">`. */
export type Enums<Name extends keyof Schema["Enums"]> = Schema["Enums"][Name];
