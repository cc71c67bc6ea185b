/**
 * The database's types as the app uses them: the generated ones (src/lib/database.types.ts, written
 * from supabase/migrations/ by tools/db-types.ts) with what the catalogue cannot say narrowed by
 * hand. A jsonb column is `Json` there; here it has the shape the publisher writes and the database
 * checks. A scalar function is never null there; here the ones that answer null without access
 * say so. Supabase's guide "Generating TypeScript Types" overrides generated types the same way
 * (type-fest's MergeDeep over the generated `Database`); here `Omit` and `&` at each level do it.
 */
import type { Database as Generated } from "./database.types.ts";

/** A lesson's video at its host (course_lessons.video). */
export interface LessonVideo {
  provider: "wistia";
  id: string;
  /** A placeholder id until the business uploads the recording (content marks `sample: true`). */
  sample?: boolean;
}

/** A lesson's file in the private bucket course-downloads (course_lessons.downloads). */
export interface LessonDownload {
  title: string;
  /** The object's name: `<program>/<file>`. */
  path: string;
  /** Its content type. */
  type: string;
}

/** `Base` with the properties `Over` names replaced by `Over`'s. */
type Replace<Base, Over> = Omit<Base, keyof Over> & Over;

type Schema = Generated["public"];
type Lessons = Schema["Tables"]["course_lessons"];
type Fns = Schema["Functions"];

/** The `Database` the browser's client is typed with (src/lib/supabase.ts). */
export type Database = {
  public: Replace<
    Schema,
    {
      Tables: Replace<
        Schema["Tables"],
        {
          course_lessons: Replace<
            Lessons,
            { Row: Replace<Lessons["Row"], { video: LessonVideo | null; downloads: LessonDownload[] }> }
          >;
        }
      >;
      // Null without access (their comments in supabase/migrations/*_member_area.sql).
      Functions: Replace<
        Fns,
        {
          program_start_date: Replace<Fns["program_start_date"], { Returns: string | null }>;
          lesson_unlocks_at: Replace<Fns["lesson_unlocks_at"], { Returns: string | null }>;
        }
      >;
    }
  >;
};

export type OrderStatus = Schema["Enums"]["order_status"];

export type ProfileRow = Database["public"]["Tables"]["profiles"]["Row"];
export type OrderRow = Database["public"]["Views"]["stripe_user_orders"]["Row"];
export type LessonRow = Database["public"]["Tables"]["course_lessons"]["Row"];
export type LessonProgressRow = Database["public"]["Tables"]["lesson_progress"]["Row"];
