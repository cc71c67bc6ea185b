/** Index arithmetic shared by every carousel (docs/product.md, States and transitions): wrap both ways, dots jump. */

export function nextIndex(index: number, count: number): number {
  if (count <= 0) return 0;
  return (index + 1) % count;
}

export function previousIndex(index: number, count: number): number {
  if (count <= 0) return 0;
  return (index - 1 + count) % count;
}

/** The index a dot selects; out-of-range dots clamp to the nearest slide. */
export function dotIndex(dot: number, count: number): number {
  if (count <= 0) return 0;
  return Math.min(Math.max(Math.trunc(dot), 0), count - 1);
}
