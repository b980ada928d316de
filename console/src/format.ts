/** Numbers as people read them. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

export function ms(n: number): string {
  return n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(n >= 10 ? 1 : 2)} ms`;
}

export function count(n: number): string {
  return n.toLocaleString("en-US");
}

export function figure(n: number): string {
  return n.toFixed(3);
}

/** The share of direct mode's bytes that was not sent. */
export function saved(upfront: number, direct: number): string {
  return direct > 0 ? `${(100 * (1 - upfront / direct)).toFixed(1)}%` : "–";
}

export function ago(iso: string | undefined): string {
  if (iso === undefined) return "–";
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`;
}
