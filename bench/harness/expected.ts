/**
 * Whether a turn called the tool its request names. Generated catalogs past 480 tools hold
 * numbered revisions of the same endpoint (`billing_create_invoice_v2`, "kept for older
 * integrations") whose descriptions match the request exactly as well as the original's, so
 * either is a right answer; any other tool is a wrong result.
 */
export function isExpectedTool(actual: string | undefined, expected: string): boolean {
  if (actual === undefined) return false;
  if (actual === expected) return true;
  return actual.startsWith(`${expected}_v`) && /^\d+$/.test(actual.slice(expected.length + 2));
}
