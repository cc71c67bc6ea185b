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
    };
    Views: {
      stripe_user_orders: {
        Row: {
          amount_subtotal: number | null;
          amount_total: number | null;
          checkout_session_id: string | null;
          cohort_start: string | null;
          currency: string | null;
          customer_id: string | null;
          order_date: string | null;
          order_id: number | null;
          order_reference: string | null;
          order_status: Database["public"]["Enums"]["order_status"] | null;
          payment_intent_id: string | null;
          payment_status: string | null;
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
      /** Whether the caller has a completed (not refunded, disputed or failed) order for the program. */
      has_program_access: { Args: { p_product_key: string }; Returns: boolean };
      /** When a cohort lesson of that week opens for the caller; null without access. */
      lesson_unlocks_at: { Args: { p_product_key: string; p_unlock_week: number }; Returns: string };
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
