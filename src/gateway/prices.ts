/**
 * Dollars per million tokens (input, output) of the models the HTTP backends are likely to run,
 * for the cost of a job when the API reports only tokens. Unknown models (Ollama's, a proxy's)
 * have no price: their jobs record tokens and no cost, and do not count against the budget. The
 * CLI backend needs none of this: the CLI reports its own total_cost_usd.
 */
const PRICES: [RegExp, number, number][] = [
  [/haiku-4/i, 1, 5],
  [/haiku-3-5|3-5-haiku/i, 0.8, 4],
  [/haiku/i, 0.25, 1.25],
  [/sonnet/i, 3, 15],
  [/gpt-4\.1-nano/i, 0.1, 0.4],
  [/gpt-4\.1-mini/i, 0.4, 1.6],
  [/gpt-4\.1/i, 2, 8],
  [/gpt-4o-mini/i, 0.15, 0.6],
  [/gpt-4o/i, 2.5, 10],
  [/gpt-5-nano/i, 0.05, 0.4],
  [/gpt-5-mini/i, 0.25, 2],
];

export function costOf(
  model: string,
  inputTokens: number | null,
  outputTokens: number | null,
): number | null {
  const price = PRICES.find(([re]) => re.test(model));
  if (!price || inputTokens === null || outputTokens === null) return null;
  return (inputTokens * price[1] + outputTokens * price[2]) / 1_000_000;
}
