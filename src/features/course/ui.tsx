/** Small pieces the member area's islands share beyond the kit (src/components/ui/): the way to buy, its icons. */
import { pillButtonClass } from "~/components/ui/panel";
import { formatCents } from "@advisor-accelerator/shared/money.ts";

/** For a program not on the account: its checkout, with the price, and its page. */
export function BuyLinks({
  program,
}: {
  program: { name: string; checkoutKey: string; priceCents: number; page: string };
}) {
  return (
    <div className="mt-6 flex flex-wrap gap-3">
      <a href={`/checkout/${program.checkoutKey}`} className={pillButtonClass.primary}>
        Get {program.name} · {formatCents(program.priceCents)}
      </a>
      <a href={program.page} className={pillButtonClass.secondary}>
        See what&rsquo;s inside
      </a>
    </div>
  );
}

export function CheckIcon({ className = "size-4" }: { className?: string }) {
  return (
    <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={className}>
      <path
        fillRule="evenodd"
        d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z"
        clipRule="evenodd"
      />
    </svg>
  );
}

export function LockIcon({ className = "size-3.5" }: { className?: string }) {
  return (
    <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={className}>
      <path
        fillRule="evenodd"
        d="M10 1a4.5 4.5 0 0 0-4.5 4.5V8H5a2 2 0 0 0-2 2v6a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-6a2 2 0 0 0-2-2h-.5V5.5A4.5 4.5 0 0 0 10 1Zm2.5 7V5.5a2.5 2.5 0 0 0-5 0V8h5Z"
        clipRule="evenodd"
      />
    </svg>
  );
}
