/**
 * The database as the browser sees it, in the shape `supabase gen types typescript` writes:
 * what supabase/migrations/ grant the `authenticated` role. tests/integration/database-types.test.ts
 * checks these columns against the migrated database.
 */
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[];

export type OrderStatus = "pending" | "completed" | "canceled" | "refunded" | "failed";

/** A lesson's video at its host (course_lessons.video). */
export interface LessonVideo {
  provider: "wistia";
  id: string;
}

/** A lesson's file in the private bucket course-downloads (course_lessons.downloads). */
export interface LessonDownload {
  title: string;
  /** The object's name: `<program>/<file>`. */
  path: string;
  /** Its content type. */
  type: string;
}

export interface Database {
  public: {
    Tables: {
      profiles: {
        Row: {
          id: string;
          full_name: string | null;
          address: string | null;
          address_2: string | null;
          city: string | null;
          state: string | null;
          country: string | null;
          zip: string | null;
          avatar_url: string | null;
          updated_at: string;
        };
        Insert: {
          id: string;
          full_name?: string | null;
          address?: string | null;
          address_2?: string | null;
          city?: string | null;
          state?: string | null;
          country?: string | null;
          zip?: string | null;
          avatar_url?: string | null;
        };
        Update: {
          id?: string;
          full_name?: string | null;
          address?: string | null;
          address_2?: string | null;
          city?: string | null;
          state?: string | null;
          country?: string | null;
          zip?: string | null;
          avatar_url?: string | null;
        };
        Relationships: [];
      };
      course_lessons: {
        Row: {
          id: string;
          product_key: string;
          module: number;
          position: number;
          title: string;
          duration_minutes: number;
          summary: string;
          body_html: string;
          video: LessonVideo | null;
          downloads: LessonDownload[];
          free_preview: boolean;
          unlock_week: number | null;
          content_hash: string;
          removed_at: string | null;
          published_at: string;
          updated_at: string;
        };
        Insert: never;
        Update: never;
        Relationships: [];
      };
      lesson_progress: {
        Row: {
          user_id: string;
          lesson_id: string;
          completed: boolean;
          completed_at: string | null;
          video_position: number;
          updated_at: string;
        };
        Insert: {
          user_id?: string;
          lesson_id: string;
          completed?: boolean;
          video_position?: number;
        };
        Update: {
          completed?: boolean;
          video_position?: number;
        };
        Relationships: [];
      };
    };
    Views: {
      stripe_user_orders: {
        Row: {
          customer_id: string | null;
          order_id: number | null;
          checkout_session_id: string | null;
          payment_intent_id: string | null;
          amount_subtotal: number | null;
          amount_total: number | null;
          currency: string | null;
          payment_status: string | null;
          order_status: OrderStatus | null;
          product_key: string | null;
          order_date: string | null;
          /** What the customer quotes: 8 hex digits of the session id's SHA-256 (functions/_shared/order-reference.ts). */
          order_reference: string | null;
          /** Stripe's hosted receipt, when Stripe has one. */
          receipt_url: string | null;
        };
        Relationships: [];
      };
    };
    Functions: {
      has_program_access: { Args: { p_product_key: string }; Returns: boolean };
      program_start_date: { Args: { p_product_key: string }; Returns: string | null };
      lesson_unlocks_at: { Args: { p_product_key: string; p_unlock_week: number }; Returns: string | null };
      can_read_lesson: { Args: { p_lesson_id: string }; Returns: boolean };
      can_read_download: { Args: { p_name: string }; Returns: boolean };
    };
    Enums: { order_status: OrderStatus };
    CompositeTypes: Record<string, never>;
  };
}

export type ProfileRow = Database["public"]["Tables"]["profiles"]["Row"];
export type OrderRow = Database["public"]["Views"]["stripe_user_orders"]["Row"];
export type LessonRow = Database["public"]["Tables"]["course_lessons"]["Row"];
export type LessonProgressRow = Database["public"]["Tables"]["lesson_progress"]["Row"];
