/**
 * The database as the browser sees it, in the shape `supabase gen types typescript` writes:
 * what supabase/migrations/ grant the `authenticated` role. tests/integration/database-types.test.ts
 * checks these columns against the migrated database.
 */
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[];

export type OrderStatus = "pending" | "completed" | "canceled" | "refunded" | "failed";

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
        };
        Relationships: [];
      };
    };
    Functions: Record<string, never>;
    Enums: { order_status: OrderStatus };
    CompositeTypes: Record<string, never>;
  };
}

export type ProfileRow = Database["public"]["Tables"]["profiles"]["Row"];
export type OrderRow = Database["public"]["Views"]["stripe_user_orders"]["Row"];
