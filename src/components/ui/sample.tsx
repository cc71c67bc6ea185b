/** The "Sample" label of sample content in an island: the twin of src/components/SampleMark.astro. */
import { SAMPLE_MARK_CLASS } from "~/lib/sample-mark";

export function SampleBadge() {
  return (
    <span className={`ml-2 ${SAMPLE_MARK_CLASS}`}>
      Sample<span className="sr-only"> content</span>
    </span>
  );
}
