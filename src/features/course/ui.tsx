/** Small pieces the member area's islands share. */
import { formatCents } from "../../lib/money";

/** For a program not on the account: its checkout, with the price, and its page. */
export function BuyLinks({
  program,
}: {
  program: { name: string; checkoutKey: string; priceCents: number; page: string };
}) {
  return (
    <div className="mt-6 flex flex-wrap gap-3">
      <a
        href={`/checkout/${program.checkoutKey}`}
        className="inline-flex min-h-11 items-center justify-center rounded-full bg-violet-600 px-6 text-sm font-semibold text-white hover:bg-violet-500"
      >
        Get {program.name} · {formatCents(program.priceCents)}
      </a>
      <a
        href={program.page}
        className="inline-flex min-h-11 items-center justify-center rounded-full border border-white/20 px-6 text-sm font-semibold text-white hover:bg-white/10"
      >
        See what&rsquo;s inside
      </a>
    </div>
  );
}

/** A course's completion as a bar, with its percentage for assistive technology. */
export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      className="mt-3 h-2 w-full overflow-hidden rounded-full bg-white/10"
    >
      <div
        className="h-full rounded-full bg-gradient-to-r from-violet-500 to-sky-400"
        style={{ width: `${percent}%` }}
      />
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
