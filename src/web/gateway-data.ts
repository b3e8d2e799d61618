/** The model gateway's state as JSON, shared by the API and the pages. */
import type { GatewayState } from '../gateway/index.js';

export function gatewayStateJson(s: GatewayState) {
  return {
    backend: s.backend,
    available: s.available,
    off_reason: s.offReason,
    models: s.models,
    daily_budget_usd: s.dailyBudgetUsd,
    spent_today_usd: s.spentTodayUsd,
    fleet_budget_usd: s.fleetBudgetUsd,
    fleet_spent_today_usd: s.fleetSpentTodayUsd,
    budget_reached: s.budgetReached,
    running: s.running,
    waiting: s.waiting,
  };
}
