// Money as the contract states it: whole cents of an ISO 4217 currency
// (priceCents, amountCents, …). One formatter for every view, so a team's
// plan and an engagement's price read alike, in the browser's locale.

// centsText is an amount in cents as people read it ("$123.45").
export function centsText(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency: currency || "USD" }).format(cents / 100);
  } catch {
    // A code Intl does not know still reads as an amount.
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

// centsOf reads an amount typed in units ("12.5") as whole cents (1250);
// NaN when it is no number. Rounded, so 0.1 + 0.2 typed as 0.3 stays 30.
export function centsOf(units: string): number {
  const n = Number(units.trim());
  return units.trim() === "" || !Number.isFinite(n) ? Number.NaN : Math.round(n * 100);
}

// unitsOf is cents as the value of an amount field (1250 → "12.50").
export function unitsOf(cents: number): string {
  return (cents / 100).toFixed(2);
}
